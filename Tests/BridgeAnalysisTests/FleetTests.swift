@testable import BridgeAnalysis
import BridgeArchive
import BridgeJSON
import BridgeTestSupport
import Foundation
import Testing

/// `analyze --fleet`: the aggregate equals what the per-session reports add up to, every
/// unreadable or damaged input is named, the time window selects, the CLI writes the
/// three formats (docs/FLEET.md).
@Suite(.serialized)
struct FleetTests {
    static let captures = ProjectPaths.root.appendingPathComponent("captures")
    static var paths: [String] {
        ["happy-passport.bsz", "nfc-never-answered.bsz", "busy-storm.bsz", "dual-picture-retake.bsz", "malformed-traffic.bsz"]
            .map { captures.appendingPathComponent($0).path }
    }

    func tempDir() throws -> URL {
        let dir = TestScratch.rootURL.appendingPathComponent("bridgescope-fleet-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func theAggregateIsWhatTheSessionsAddUpTo() async throws {
        let fleet = await FleetAnalyzer(jobs: 2).run(Self.paths)
        let batch = await BatchAnalyzer(jobs: 2).run(Self.paths)
        #expect(fleet.sessions == 5 && fleet.failures.isEmpty && fleet.damaged.isEmpty)
        #expect(fleet.requests == batch.aggregate.requests && fleet.records == batch.aggregate.records)
        #expect(fleet.journeys == batch.reports.reduce(0) { $0 + $1.connections.count })
        #expect(fleet.latency.map(\.action) == batch.aggregate.latency.map(\.action))
        for (f, b) in zip(fleet.latency, batch.aggregate.latency) {
            #expect(f.count == b.count && f.p50 == b.p50 && f.p99 == b.p99 && f.max == b.max, "\(f.action)")
        }
        for c in batch.aggregate.ruleCounts {
            let rule = fleet.rules.first { $0.rule == c.rule }
            #expect(rule?.count == c.count && rule?.sessions == batch.aggregate.sessionsPerRule[c.rule], "\(c.rule)")
        }
        let unanswered = try #require(fleet.rules.first { $0.rule == .unansweredRequest })
        #expect(unanswered.examples == [Self.paths[1]])
        #expect(fleet.worst.first?.path == Self.paths[1] || fleet.worst.first?.path == Self.paths[4])
        #expect(fleet.outcomes.values.reduce(0, +) == fleet.journeys)
        let versions = fleet.cuts.filter { $0.dimension == .hostVersion }
        #expect(versions.reduce(0) { $0 + $1.sessions } == 5)
        #expect(fleet.cuts.filter { $0.dimension == .source }.map(\.value) == ["tap"])
    }

    @Test func unreadableAndDamagedSessionsAreNamedAndTheRunGoesOn() async throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bytes = try Data(contentsOf: Self.captures.appendingPathComponent("happy-passport.bsz"))
        let truncated = dir.appendingPathComponent("truncated.bsz")
        try bytes.prefix(bytes.count * 2 / 3).write(to: truncated)
        let garbage = dir.appendingPathComponent("garbage.bsz")
        try Data([0x28, 0xB5, 0x2F, 0xFD, 1, 2, 3]).write(to: garbage)
        let fleet = await FleetAnalyzer(jobs: 2).run([garbage.path, truncated.path] + Self.paths)
        #expect(fleet.sessions == 6)
        #expect(fleet.failures.map(\.path) == [garbage.path])
        #expect(fleet.damaged == [truncated.path])
        #expect(fleet.exitStatus(threshold: .error) == 2)
        let text = FleetTextRenderer().render(fleet)
        #expect(text.contains("Unreadable inputs\n  \(garbage.path)"))
        #expect(text.contains("Damaged sessions (analysed as far as readable)\n  \(truncated.path)"))
    }

    @Test func sinceAndUntilSelectBySessionTime() async throws {
        let reports = try Self.paths.map { p -> (String, Int64) in
            let header = try ArchiveEventSource(path: p).header
            return (p, header.startTime)
        }.sorted { $0.1 < $1.1 }
        let cut = reports[2].1
        let after = await FleetAnalyzer(jobs: 2, since: cut).run(Self.paths)
        let before = await FleetAnalyzer(jobs: 2, until: cut).run(Self.paths)
        #expect(after.sessions == 3 && after.outsideWindow == 2)
        #expect(before.sessions == 2 && before.outsideWindow == 3)
        #expect(FleetAnalyzer.time("2026-11-24") == 1_795_478_400_000_000_000)
        let day: Int64 = 1_795_478_400_000_000_000, thirteen: Int64 = 13 * 3_600_000_000_000
        #expect(FleetAnalyzer.time("2026-11-24T13:00:00Z") == day + thirteen)
        #expect(FleetAnalyzer.time("2026-11-24T14:00:00+01:00") == day + thirteen)
        #expect(FleetAnalyzer.time("yesterday") == nil)
    }

    @Test func theCommandWritesTextJSONAndHTML() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = try runBridgescope(["analyze", "--fleet", "--jobs", "2", Self.captures.path])
        #expect(text.status == 1, "nfc-never-answered has an error: \(text.stderr)")
        #expect(text.stdout.hasPrefix("FLEET 5 sessions"))
        #expect(text.stdout.contains("BRG100 unanswered-request [error]: 1 in 1 session, e.g. "))
        #expect(text.stdout.contains("By hostVersion (ms)"))
        let json = dir.appendingPathComponent("fleet.json")
        let r = try runBridgescope(["analyze", "--fleet", "--format", "json", "-o", json.path, "--fail-on", "never", Self.captures.path])
        #expect(r.status == 0, "\(r.stderr)")
        let value = try JSONParser().parse(String(contentsOf: json, encoding: .utf8)).value
        #expect(value["bridgescopeFleet"] == .integer(1))
        #expect(value["sessions"] == .integer(5))
        let html = dir.appendingPathComponent("fleet.html")
        #expect(try runBridgescope(["analyze", "--fleet", "--format", "html", "-o", html.path, "--fail-on", "never", Self.captures.path]).status == 0)
        let page = try String(contentsOf: html, encoding: .utf8)
        #expect(page.contains("<svg") && page.contains("Fleet: 5 sessions"))
        let window = try runBridgescope(["analyze", "--fleet", "--since", "2030-01-01", Self.captures.path])
        #expect(window.status == 0 && window.stdout.hasPrefix("FLEET 0 sessions"))
        #expect(try runBridgescope(["analyze", "--since", "2030-01-01", Self.captures.path]).status == 2)
        #expect(try runBridgescope(["analyze", "--fleet", "--format", "junit", Self.captures.path]).status == 2)
    }
}

/// The one-pass percentiles give exactly what hdrhistogram-swift's `valueAtPercentile` gives.
@Suite struct PercentileTests {
    @Test(arguments: 0..<40)
    func onePassEqualsValueAtPercentile(seed: Int) {
        var rng = SplitMix64(seed: UInt64(seed) &+ 0x9E3779B97F4A7C15)
        var h = LatencyRecorder.newHistogram()
        let n = [1, 2, 3, 10, 100, 1000, 5000][seed % 7]
        for _ in 0..<n {
            let scale = [1_000, 100_000, 10_000_000, 200_000_000][Int(rng.next() % 4)]
            _ = h.record(1 + rng.next() % UInt64(scale))
        }
        if seed % 5 == 0 {
            var other = LatencyRecorder.newHistogram()
            _ = other.record(123_456_789)
            h.add(other)
        }
        let levels: [Double] = [1, 25, 50, 75, 90, 99, 99.9]
        #expect(LatencyRecorder.percentiles(h, levels) == levels.map { h.valueAtPercentile($0) })
    }
}

/// A fleet session's latency (samples, no percentiles) merges into exactly the
/// statistics of the plain session's histogram, below and past `maxSamples`.
@Suite struct FleetSamplingTests {
    @Test(arguments: [1, 10, LatencyRecorder.maxSamples, LatencyRecorder.maxSamples + 1, 3_000])
    func samplesMergeLikeTheHistogram(n: Int) {
        var rng = SplitMix64(seed: UInt64(n))
        var plain = LatencyRecorder(keepSlowest: 5), fleet = LatencyRecorder(keepSlowest: 5, sampling: true)
        for i in 0..<n {
            let nanos = Int64(1 + rng.next() % 40_000_000_000)
            plain.record(action: "a", nanos: nanos, correlationId: "c\(i)", connection: "x", record: i)
            fleet.record(action: "a", nanos: nanos, correlationId: "c\(i)", connection: "x", record: i)
        }
        let l = fleet.report()[0]
        #expect(l.p50 == 0 && l.max == plain.report()[0].max)
        #expect(l.samples.count == (n <= LatencyRecorder.maxSamples ? n : 0))
        var fromPlain = LatencyRecorder.PerAction(), fromFleet = LatencyRecorder.PerAction()
        fromPlain.merge(plain.report()[0], keepSlowest: 5)
        fromFleet.merge(l, keepSlowest: 5)
        #expect(LatencyRecorder.statistics(action: "a", fromFleet) == LatencyRecorder.statistics(action: "a", fromPlain))
        #expect(LatencyRecorder.statistics(action: "a", fromFleet) == plain.report()[0])
    }
}

/// Latencies wait in `pending` (up to `pendingLimit`) before they go into the
/// histogram: what the report says is what a histogram fed one latency at a time says,
/// below, at and past the limit, and while some are still pending.
@Suite struct PendingLatencyTests {
    @Test(arguments: [1, LatencyRecorder.PerAction.pendingLimit - 1, LatencyRecorder.PerAction.pendingLimit,
                      LatencyRecorder.PerAction.pendingLimit + 1, 1_000])
    func pendingLatenciesAreCounted(n: Int) {
        var rng = SplitMix64(seed: UInt64(n) &+ 99)
        var recorder = LatencyRecorder(keepSlowest: 3)
        var reference = LatencyRecorder.newHistogram()
        for i in 0..<n {
            let nanos = Int64(1_000 + rng.next() % 30_000_000_000)
            recorder.record(action: "a", kind: .other, nanos: nanos, correlationId: "c\(i)", connection: "x", record: i)
            _ = reference.record(UInt64(nanos / 1_000))
        }
        let l = recorder.report()[0]
        #expect(l.count == n && l.histogram.totalCount == UInt64(n))
        let p = LatencyRecorder.percentiles(reference, [50, 90, 99])
        #expect([l.p50, l.p90, l.p99] == p.map { Int64($0) })
        #expect(l.max == Int64(reference.maxRecorded))
        #expect(recorder.actions["a"]!.pending.count == n % LatencyRecorder.PerAction.pendingLimit)
    }
}
