import BridgeAnalysis
import BridgeProtocol
import Testing

/// Long journeys: folded, cut around what matters, and the cuts said; the HTML time axis
/// keeps the busy part wide when one request waits long.
struct JourneyFoldingTests {
    static func step(_ n: Int, _ action: String, outcome: String? = "success", findings: [RuleID] = [], at ms: Int64 = 0) -> JourneyStep {
        JourneyStep(kind: .request, action: action, correlationId: "id-\(n)", direction: .webToHost, start: ms * 1_000_000,
                    end: ms * 1_000_000 + 1_000_000, acknowledged: nil, outcome: outcome, errorCode: nil, detail: nil,
                    records: [n * 2 + 1, n * 2 + 2], findings: findings)
    }

    static func covered(_ rows: [JourneyFolding.Row]) -> Int {
        rows.reduce(0) { total, row in
            switch row {
            case .step: total + 1
            case .run(let count, _, _, _), .skipped(let count, _, _): total + count
            }
        }
    }

    @Test func aShortJourneyIsShownWhole() {
        let steps = (0..<3).map { Self.step($0, "capability.query") }
        #expect(JourneyFolding().rows(steps) == [.step(0), .step(1), .step(2)])
    }

    @Test func alikeStepsFoldIntoACountWithTheirRecords() {
        var steps = (0..<500).map { Self.step($0, "capability.query") }
        steps[250] = Self.step(250, "camera.document.capture", outcome: "error", findings: [.busyRetryStorm])
        let rows = JourneyFolding().rows(steps)
        #expect(Self.covered(rows) == 500)
        #expect(rows.contains(.step(250)))
        #expect(rows.count == 7)
        #expect(rows[1] == .run(count: 248, like: 1, firstRecord: 3, lastRecord: 497))
    }

    @Test func aLongVariedJourneyKeepsHeadTailAndTheContextOfFindings() {
        var steps = (0..<3_000).map { Self.step($0, $0 % 2 == 0 ? "nfc.read" : "capability.query") }
        steps[1_500].findings = [.unansweredRequest]
        steps[1_500].outcome = "unanswered"
        let rows = JourneyFolding().rows(steps)
        #expect(Self.covered(rows) == 3_000)
        #expect(rows.count < 100)
        #expect(rows.contains(.step(1_500)) && rows.contains(.step(1_497)) && rows.contains(.step(1_503)))
        #expect(rows.first == .step(0) && rows.last == .step(2_999))
        let skipped = rows.compactMap { row -> Int? in if case .skipped(let c, _, _) = row { return c } else { return nil } }
        #expect(skipped.count == 2 && skipped.reduce(0, +) == 3_000 - 80 - 7)
    }

    @Test func theAxisIsCutWhereOneRequestWaitsAndTheBusyPartKeepsItsWidth() {
        // Everything in the first 250 ms, then one answer at 30 s.
        let times: [Int64] = stride(from: 0, through: 250, by: 10).map { Int64($0) * 1_000_000 } + [30_000_000_000]
        let axis = TimeAxis(t0: 0, t1: 30_000_000_000, times: times, left: 70, width: 910)
        #expect(axis.segments.filter(\.isBreak).count == 1)
        // The busy 250 ms take most of the width, not 250/30000 of it (7.6 px).
        #expect(axis.x(250_000_000) - axis.x(0) > 500)
        #expect(axis.x(30_000_000_000) == 980)
        // Monotonic.
        var last = -1.0
        for t in stride(from: Int64(0), through: 30_000_000_000, by: 100_000_000) {
            #expect(axis.x(t) >= last)
            last = axis.x(t)
        }
        let ticks = axis.ticks(t0: 0)
        #expect(!ticks.times.isEmpty && ticks.times.count < 60)
    }

    @Test func aBusyAxisHasNoBreak() {
        let times: [Int64] = stride(from: 0, through: 10_000, by: 100).map { Int64($0) * 1_000_000 }
        let axis = TimeAxis(t0: 0, t1: 10_000_000_000, times: times, left: 0, width: 1000)
        #expect(axis.segments.count == 1)
        #expect(abs(axis.x(5_000_000_000) - 500) < 0.001)
    }

    @Test func theHTMLReportOfALongSessionFoldsAndCutsItsAxis() throws {
        let report = try Fixtures.analyze("long-session-uuids.ndjson")
        let html = HTMLReportRenderer().render(AnalysisBatch(reports: [report]))
        #expect(html.contains("class=\"axis-break\""))
        #expect(html.contains("298 more like"))
        #expect(html.contains("The axis is cut where nothing happened"))
    }
}

/// A finding about a request names that request (its id, its record first), not the
/// event that revealed the problem.
struct FindingTargetTests {
    @Test func backgroundedDuringCaptureNamesThePendingCapture() throws {
        let report = try Fixtures.analyze("backgrounded-during-capture.trigger.ndjson")
        let f = try #require(report.findings.first { $0.rule == .backgroundedDuringCapture })
        #expect(f.correlationId == "s-1")
        #expect(f.records == [6, 7])
        #expect(f.message.contains("camera.selfie.capture (s-1, record 6)"))
        let step = try #require(report.connections.first?.steps.first { $0.correlationId == "s-1" })
        #expect(step.findings.contains(.backgroundedDuringCapture))
    }

    @Test func missingHostReadyNamesTheEarlyRequest() throws {
        let report = try Fixtures.analyze("missing-host-ready.trigger.ndjson")
        for f in report.findings where f.rule == .missingHostReady {
            #expect(f.correlationId?.hasPrefix("ios-event") == false, "\(f)")
        }
    }
}

/// Issue 21's note: the end of an incomplete journey names the connection's real last
/// request, even past the step cap.
struct LastRequestTests {
    @Test func journeyIncompleteNamesTheLastRequestPastTheStepCap() throws {
        var config = AnalyzerConfiguration()
        config.limits.maxStepsPerConnection = 10
        let report = try Fixtures.analyze("long-session-uuids.ndjson", configuration: config)
        #expect(report.connections.first?.stepsOmitted ?? 0 > 500)
        // The fixture completes; cut its journey.complete off to make it incomplete.
        let lines = try String(contentsOf: Fixtures.directory.appendingPathComponent("long-session-uuids.ndjson"), encoding: .utf8)
            .split(separator: "\n").dropLast()
        let cut = try Fixtures.analyze(text: lines.joined(separator: "\n"), configuration: config)
        let f = try #require(cut.findings.first { $0.rule == .journeyIncomplete })
        #expect(f.message.contains("last request: nfc.read"), "\(f.message)")
        #expect(f.records == [1216])
    }
}
