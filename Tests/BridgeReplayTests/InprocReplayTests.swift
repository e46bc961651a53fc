import BridgeHost
@testable import BridgeReplay
import Testing
import BridgeClock

/// The in-process target: the reference host on virtual time (and, under
/// `--real-clock`, on the real one).
struct InprocReplayTests {
    @Test func replayingTheSameSessionTwiceGivesZeroDivergences() async {
        let session = passportSession()
        for _ in 0..<2 {
            let report = await replay(session, ReplayOptions(target: .inproc(scenario: nil)))
            #expect(report.divergenceCount == 0, "\(report.renderText())")
            #expect(report.exitStatus == 0)
            #expect(report.sent == 9)
            // host.ready and four final responses.
            #expect(report.received == 5)
        }
    }

    @Test func everyPacingModeReplaysWithoutDivergenceOnVirtualTime() async {
        let session = passportSession()
        for pace in ["asap", "recorded", "x2", "x0.5"] {
            let options = ReplayOptions(target: .inproc(scenario: nil), pacing: ReplayPacing(parsing: pace)!)
            let report = await replay(session, options)
            #expect(report.divergenceCount == 0, "\(pace): \(report.renderText())")
            #expect(report.lateness == nil, "virtual time has no lateness")
        }
    }

    @Test func aSessionFromOneScenarioReplayedAgainstAnotherShowsTheDisagreement() async throws {
        let session = passportSession()
        let missing = try ReplayTarget.inproc(scenario: "nfc-missing").scenario(searchDirectories: [scenarioDirectory])
        let report = await replay(session, ReplayOptions(target: .inproc(scenario: "nfc-missing"), scenario: missing))
        let kinds = Set(report.divergences.map(\.kind))
        #expect(report.exitStatus == 1)
        // The query no longer lists NFC, and the read is refused.
        #expect(report.divergences.contains {
            $0.kind == .dataDiffers && $0.action == "capability.query" && $0.pointer == "/payload/data/capabilities/nfc.read"
                && $0.actual == "absent"
        })
        #expect(report.divergences.contains {
            $0.kind == .statusDiffers && $0.action == "nfc.read" && $0.expected == "success" && $0.actual == "unsupported"
        })
        #expect(!kinds.contains(.missingResponse))
        #expect(report.renderText().contains("status unsupported (UNSUPPORTED_ACTION), recorded success"))
    }

    @Test func aSlowerHostIsATimingDivergenceOnlyBeyondTheTolerance() async throws {
        var slow = Scenario()
        slow.document.latencyMs = 3_000
        let session = passportSession()
        let report = await replay(session, ReplayOptions(target: .inproc(scenario: "slow"), scenario: slow))
        let timing = report.divergences.filter { $0.kind == .timing }
        #expect(timing.count == 1)
        #expect(timing.first?.action == "camera.document.capture")
        #expect(timing.first?.expected == "100.0 ms" && timing.first?.actual == "3000.0 ms")
        let lenient = await replay(session, ReplayOptions(target: .inproc(scenario: "slow"), scenario: slow,
                                                          tolerance: TimingTolerance(absolute: 5_000_000_000)))
        #expect(lenient.divergenceCount == 0)
        let off = await replay(session, ReplayOptions(target: .inproc(scenario: "slow"), scenario: slow, tolerance: nil))
        #expect(off.divergenceCount == 0)
    }

    @Test func causalityHoldsAMessageUntilTheResponseItFollowedArrives() async {
        // Recorded: the selfie request went out only after the document answer.
        let session = passportSession()
        let plan = ReplayPlanner.plan(session)[0]
        var slow = Scenario()
        slow.document.latencyMs = 2_000
        let run = VirtualReplayDriver.run(plan: plan, scenario: slow, pacing: .asap, timing: .init(), seed: 1)
        let doc = run.observed.requests.first { $0.sent.message.action == "camera.document.capture" }!
        let nfc = run.observed.requests.first { $0.sent.message.action == "nfc.read" }!
        let docAnswer = run.observed.responses[doc.key]!.last!
        #expect(nfc.sent.time >= docAnswer.time)
        #expect(nfc.sent.time - doc.sent.time == 2_000_000_000)
    }

    @Test func aResponseThatNeverComesIsGivenUpOnAfterTheTimeout() async {
        // Recorded against a host that answered nfc.read; this one takes hours to.
        let session = passportSession()
        var hanging = Scenario()
        hanging.custom[0].latencyMs = 10_000_000
        let options = ReplayOptions(target: .inproc(scenario: "hanging"), scenario: hanging,
                                    timing: .init(responseTimeout: 5_000_000_000, linger: 1_000_000_000))
        let report = await replay(session, options)
        #expect(report.connections[0].timedOut == 1)
        #expect(report.connections[0].sent == 9, "the messages after nfc.read still go once its timeout passed")
        #expect(report.divergences.contains { $0.kind == .missingResponse && $0.action == "nfc.read" })
    }

    @Test func realClockInprocReplaysInRecordedOrder() async {
        let session = passportSession()
        let options = ReplayOptions(target: .inproc(scenario: nil), pacing: .speed(20), timing: .init(responseTimeout: 60_000_000_000),
                                    tolerance: nil, realClock: true)
        let report = await replay(session, options)
        #expect(report.divergenceCount == 0, "\(report.renderText())")
        #expect(report.sent == 9)
        #expect(report.lateness != nil, "paced real-clock replays measure their lateness")
    }

    @Test func connectionsReplayConcurrentlyAndIndependently() async {
        let a = recordJourney(passportJourney, connection: "a")
        let b = recordJourney(passportJourney, connection: "b", startMs: VirtualClock.defaultStart + 50)
        let session = ReplaySession(connections: [a, b])
        let virtual = await replay(session, ReplayOptions(target: .inproc(scenario: nil)))
        #expect(virtual.connections.map(\.id) == ["a", "b"])
        #expect(virtual.divergenceCount == 0)
        let real = await replay(session, ReplayOptions(target: .inproc(scenario: nil), timing: .init(responseTimeout: 60_000_000_000),
                                                          tolerance: nil, realClock: true))
        #expect(real.divergenceCount == 0, "\(real.renderText())")
    }
}
