import BridgeFuzz
import BridgeHost
import BridgeProtocol
import Foundation
import Testing

/// A deliberately broken host for the engine's own test: every `cancelled` answer is
/// sent twice.
struct SecondResponseOnCancel: HostInterceptor {
    mutating func outbound(_ messages: [OutboundMessage], machine: inout HostStateMachine, now: Int64) -> [OutboundMessage] {
        messages.flatMap { $0.envelope.payload.status == .cancelled ? [$0, $0] : [$0] }
    }
}

@Suite struct EngineTests {
    static func seeds() -> [FuzzInput] { Corpus.files("seeds").map { Corpus.load($0).input } }

    @Test func shortRunOnTheReferenceHostIsDeterministicAndClean() async {
        func run() async -> (FuzzEngine.Stats, Int) {
            let engine = FuzzEngine(target: InProcessTarget(), configuration: FuzzConfiguration(seed: 7, maxRuns: 150))
            await engine.addSeeds(Self.seeds())
            await engine.run()
            return (engine.stats, engine.findings.count)
        }
        let a = await run(), b = await run()
        #expect(a.0.execs == b.0.execs && a.0.corpus == b.0.corpus && a.0.features == b.0.features)
        #expect(a.0.corpus > Self.seeds().count)
        #expect(a.1 == 0)
    }

    @Test func findsMinimizesAndDeduplicatesABrokenHost() async throws {
        var scenario = Scenario()
        scenario.selfie.outcomes = [.cancelled]
        let target = InProcessTarget(scenario: scenario, interceptor: SecondResponseOnCancel())
        let engine = FuzzEngine(target: target, configuration: FuzzConfiguration(seed: 1, maxRuns: 200))
        var reported: [FuzzFinding] = []
        engine.onFinding = { reported.append($0) }
        await engine.addSeeds(Self.seeds())
        await engine.run()
        let f = try #require(reported.first { $0.violation.key == "one-response second-final-response camera.selfie.capture" })
        #expect(reported.filter { $0.violation.key == f.violation.key }.count == 1)
        #expect(f.input.steps.count == 1, "\(String(decoding: FuzzCase(input: f.input).serialized(), as: UTF8.self))")
        #expect(f.fileName.hasPrefix("one-response-") && f.fileName.hasSuffix(".jsonl"))
        // The finding's file replays: the header carries how to reproduce.
        let file = f.caseFile(path: "corpus/regressions/\(f.fileName)", target: "inproc", scenario: nil, seed: 1)
        #expect(String(decoding: file.serialized(), as: UTF8.self).contains("bridgescope fuzz --reproduce corpus/regressions/"))
        let again = FuzzCase.parse(file.serialized())
        #expect(again.oracle == .oneResponse)
        var sink = FeatureSink()
        #expect(target.checker().check(target.execute(again.input), features: &sink).contains { $0.key == f.violation.key })
    }

    @Test func plainByteModeRunsTheSameLoop() async {
        let engine = FuzzEngine(target: InProcessTarget(), configuration: FuzzConfiguration(seed: 2, mode: .bytesOnly, maxRuns: 100))
        await engine.addSeeds(Self.seeds())
        await engine.run()
        #expect(engine.stats.execs >= 100)
    }
}
