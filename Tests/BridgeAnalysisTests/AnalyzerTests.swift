import BridgeAnalysis
import BridgeProtocol
import Foundation
import Testing

/// Behaviour of the streaming analyzer beyond the one-rule fixtures.
struct AnalyzerTests {
    @Test func timeoutOverridePerActionSilencesLateResponse() throws {
        var config = AnalyzerConfiguration()
        try config.timeouts.apply("camera.selfie.capture=40000")
        let report = try Fixtures.analyze("late-response.trigger.ndjson", configuration: config)
        #expect(report.countsBySlug.isEmpty)
        var strict = AnalyzerConfiguration()
        try strict.timeouts.apply("*=100")
        let strictReport = try Fixtures.analyze("happy-id-card.ndjson", configuration: strict)
        // `*` sets the default only: NFC and selfie (120 ms each) are late, the document
        // captures keep their own 120 s timeout.
        #expect(strictReport.countsBySlug["late-response"] == 2)
    }

    @Test func timeoutOptionRejectsMalformedValues() {
        var t = ActionTimeouts()
        for bad in ["nfc.read", "=100", "nfc.read=", "nfc.read=-5", "nfc.read=1.5", "nfc.read=999999999999"] {
            #expect(throws: AnalysisError.self, "\(bad)") { try t.apply(bad) }
        }
        #expect(t.milliseconds(for: "capability.query") == 5_000)
        #expect(t.milliseconds(for: "camera.document.capture") == 120_000)
        #expect(t.milliseconds(for: "nfc.read") == 30_000)
    }

    @Test func acknowledgedIsFollowedToTheFinalResponse() throws {
        let report = try Fixtures.analyze("duplicate-response.clean.ndjson")
        let nfc = try #require(report.latency.first { $0.action == "nfc.read" })
        #expect(nfc.count == 1)
        #expect(nfc.max >= 3_959_000 && nfc.max <= 3_961_000)  // request at +40 ms, final at +4000 ms
        let step = try #require(report.connections[0].steps.first { $0.correlationId == "n-1" })
        #expect(step.outcome == "success")
        #expect(step.acknowledged != nil)
        #expect(step.records.count == 3)
    }

    @Test func latencyHasPercentilesAndSlowestExamples() throws {
        var b = TapBuilder()
        b.start()
        for i in 0..<100 {
            let t = Int64(100 + i * 1000)
            b.request(t, "p-\(i)", "app.ping")
            b.response(t + Int64(i + 1), "p-\(i)", "app.ping")
        }
        b.webEvent(200_000, "journey.complete", data: #"{"status":"passed"}"#)
        let report = try Fixtures.analyze(text: b.text)
        let ping = try #require(report.latency.first { $0.action == "app.ping" })
        #expect(ping.count == 100)
        #expect(abs(ping.p50 - 50_000) <= 100)
        #expect(abs(ping.p90 - 90_000) <= 100)
        #expect(abs(ping.p99 - 99_000) <= 100)
        #expect(ping.max == 100_000)
        #expect(ping.slowest.map(\.correlationId) == ["p-99", "p-98", "p-97", "p-96", "p-95"])
        #expect(ping.buckets.reduce(0) { $0 + $1.count } == 100)
    }

    @Test func memoryStaysBoundedOnALongSession() throws {
        var config = AnalyzerConfiguration()
        config.limits.maxStepsPerConnection = 100
        config.limits.maxRememberedIDsPerConnection = 1_000
        config.limits.maxFindingsPerRule = 10
        var analyzer = SessionAnalyzer(source: "long", configuration: config)
        let t0: Int64 = 1_763_830_000_000_000_000
        var record = 0
        func feed(_ json: String, _ dir: Direction, _ t: Int64) {
            record += 1
            analyzer.feed(.message(seq: record, time: t, direction: dir, connection: "c1", bytes: Array(json.utf8)[...], record: record))
        }
        for i in 0..<20_000 {
            let t = t0 + Int64(i) * 1_000_000
            let ms = t / 1_000_000
            feed(#"{"version":"1.0","correlationId":"p-\#(i)","type":"request","timestamp":\#(ms),"payload":{"action":"app.ping","x":1}}"#, .webToHost, t)
            feed(#"{"version":"1.0","correlationId":"p-\#(i)","type":"response","timestamp":\#(ms),"payload":{"action":"app.ping","status":"success"}}"#, .hostToWeb, t + 500_000)
        }
        let report = analyzer.finish()
        #expect(report.connections[0].steps.count == 100)
        #expect(report.connections[0].stepsOmitted == 19_900)
        #expect(report.countsBySlug["unknown-field"] == 20_000)   // counted in full
        #expect(report.findings.filter { $0.slug == "unknown-field" }.count == 10)  // stored up to the cap
        #expect(report.findingsOmitted == 19_990)
        #expect(report.latency[0].count == 20_000)
        #expect(report.summary.unanswered == 0)
    }

    @Test func forgottenIdsBecomeUnknownCorrelationNotACrash() throws {
        var config = AnalyzerConfiguration()
        config.limits.maxRememberedIDsPerConnection = 2
        var b = TapBuilder()
        b.start()
        for i in 0..<4 {
            b.request(Int64(100 + i * 10), "p-\(i)", "app.ping")
            b.response(Int64(105 + i * 10), "p-\(i)", "app.ping")
        }
        b.response(200, "p-3", "app.ping")  // remembered: duplicate
        b.response(210, "p-0", "app.ping")  // forgotten: unknown
        b.webEvent(300, "journey.complete", data: #"{"status":"passed"}"#)
        let report = try Fixtures.analyze(text: b.text, configuration: config)
        #expect(report.countsBySlug == ["duplicate-response": 1, "unknown-correlation": 1])
    }

    @Test func hostileSessionsHitTheCapsNotTheMemory() throws {
        var config = AnalyzerConfiguration()
        config.limits.maxConnections = 10
        config.limits.maxActions = 20
        config.limits.maxOpenRequestsPerConnection = 100
        var b = TapBuilder()
        for i in 0..<50 { b.request(Int64(i), "r-\(i)", "a.x\(i)", conn: "k\(i)") }       // 50 connections
        for i in 0..<300 { b.request(Int64(100 + i), "o-\(i)", "app.ping", conn: "k0") }  // 300 more open on k0
        for i in 0..<100 { b.request(Int64(500 + i), "v-\(i)", "act.n\(i)", conn: "k1") }
        for i in 0..<100 { b.response(Int64(700 + i), "v-\(i)", "act.n\(i)", conn: "k1") }
        let report = try Fixtures.analyze(text: b.text, configuration: config)
        #expect(report.connections.count == 11)
        #expect(report.connections.last?.id == "(other connections)")
        #expect(report.findings.filter { $0.slug == "capture-error" }.count == 1)
        #expect(report.latency.count <= 21)
        #expect(report.latency.contains { $0.action == "(other actions)" })
        let k0 = try #require(report.connections.first { $0.id == "k0" })
        #expect(k0.unanswered == 100)
        #expect(k0.requests == 301)
    }

    @Test func hostileIdentifiersAreClipped() throws {
        let long = String(repeating: "x", count: 100_000)
        var b = TapBuilder()
        b.start()
        b.request(100, long, "app.ping")
        let report = try Fixtures.analyze(text: b.text)
        let f = try #require(report.findings.first { $0.slug == "unanswered-request" })
        #expect((f.correlationId?.utf8.count ?? 0) <= 260)
        #expect(f.message.utf8.count < 1_000)
    }

    @Test func undecodableRecordsAreFindingsAndPairingGoesOn() throws {
        let report = try Fixtures.analyze("malformed-traffic.ndjson")
        let malformed = try #require(report.findings.first { $0.slug == "malformed-json" })
        #expect(malformed.records == [6])
        #expect(malformed.offset == 56)
        let dup = try #require(report.findings.first { $0.slug == "duplicate-key" })
        #expect(dup.records == [11])
        #expect(report.summary.undecodable == 2)
        // The responses after the broken records still pair with their requests.
        #expect(report.connections[0].steps.first { $0.correlationId == "d-1" }?.outcome == "success")
    }

    @Test func timestampToleranceIsConfigurable() throws {
        var config = AnalyzerConfiguration()
        config.timestampToleranceMilliseconds = 100
        let report = try Fixtures.analyze("timestamp-regression.clean.ndjson", configuration: config)
        #expect(report.countsBySlug == ["timestamp-regression": 1])
    }

    @Test func journeyViewOrdersStepsWithOutcomesAndDurations() throws {
        let report = try Fixtures.analyze("two-connections.ndjson")
        #expect(report.connections.map(\.id) == ["c1", "c2"])
        let c1 = report.connections[0], c2 = report.connections[1]
        #expect(c1.outcome.state == "incomplete")
        #expect(c2.outcome == JourneyOutcome(state: "complete", detail: "passed"))
        #expect(c1.steps.map(\.action) == ["host.ready", "journey.started", "capability.query", "camera.document.capture"])
        #expect(c1.steps.last?.outcome == "unanswered")
        #expect(c1.steps.last?.findings == [.unansweredRequest])
        let capture = try #require(c2.steps.first { $0.action == "camera.document.capture" })
        #expect(capture.duration == 160_000_000)
        #expect(capture.detail == "side single")
        // Same correlationId on two connections is not a reuse: pairing is per connection.
        #expect(report.countsBySlug["reused-correlation-id"] == nil)
    }

    @Test func failPolicyIsAPureFunctionOfCountsAndThreshold() throws {
        let warn = [RuleCount(rule: .lateResponse, slug: "late-response", severity: .warning, count: 2)]
        let err = [RuleCount(rule: .unansweredRequest, slug: "unanswered-request", severity: .error, count: 1)]
        let info = [RuleCount(rule: .unknownField, slug: "unknown-field", severity: .info, count: 9)]
        #expect(!FailPolicy.fails(warn, threshold: .error))
        #expect(FailPolicy.fails(warn, threshold: .warning))
        #expect(FailPolicy.fails(err, threshold: .error))
        #expect(!FailPolicy.fails(err, threshold: .never))
        #expect(!FailPolicy.fails(info, threshold: .warning))
        let failing = AnalysisBatch(reports: [try Fixtures.analyze("unanswered-request.trigger.ndjson")])
        #expect(FailPolicy.exitStatus(failing, threshold: .error) == 1)
        #expect(FailPolicy.exitStatus(failing, threshold: .never) == 0)
        let withIOError = AnalysisBatch(reports: failing.reports,
                                        failures: [InputFailure(path: "x", error: AnalysisError(.unreadableInput, "x"))])
        #expect(FailPolicy.exitStatus(withIOError, threshold: .never) == 2)
    }

    @Test func batchAnalysesInParallelAndAggregates() async throws {
        let names = ["happy-id-card.ndjson", "unanswered-request.trigger.ndjson", "late-response.trigger.ndjson",
                     "busy-retry-storm.trigger.ndjson"]
        let batch = await BatchAnalyzer(jobs: 3).run(names.map(Fixtures.path) + ["/nonexistent/x.ndjson"])
        #expect(batch.reports.map(\.source) == names.map(Fixtures.path))
        #expect(batch.failures.count == 1)
        #expect(batch.failures[0].error.code == .unreadableInput)
        #expect(batch.aggregate.sessions == 4)
        let counts = Dictionary(uniqueKeysWithValues: batch.aggregate.ruleCounts.map { ($0.slug, $0.count) })
        #expect(counts == ["unanswered-request": 1, "late-response": 1, "busy-retry-storm": 1])
        let doc = try #require(batch.aggregate.latency.first { $0.action == "camera.document.capture" })
        let perSession: [ActionLatency] = batch.reports.flatMap(\.latency).filter { $0.action == "camera.document.capture" }
        let total: Int = perSession.map(\.count).reduce(0, +)
        #expect(doc.count == total)
    }
}
