import BridgeFuzz
import BridgeHost
import Foundation
import Testing

@Suite struct EngineTests {
    static func seeds() -> [FuzzInput] { Corpus.files("seeds").map { Corpus.load($0).input } }

    @Test func shortRunOnTheReferenceHostIsDeterministic() async {
        func run() async -> (UInt64, Int, Int) {
            let engine = FuzzEngine(target: InProcessTarget(), configuration: FuzzConfiguration(seed: 7, maxRuns: 1500))
            await engine.addSeeds(Self.seeds())
            await engine.run()
            if ProcessInfo.processInfo.environment["BRIDGESCOPE_PRINT_FINDINGS"] != nil {
                for f in engine.findings.values { print("FINDING \(f.violation)\n  \(String(decoding: FuzzCase(input: f.input).serialized().prefix(600), as: UTF8.self))") }
            }
            return (engine.stats.execs, engine.stats.corpus, engine.stats.features)
        }
        let a = await run(), b = await run()
        #expect(a == b)
        #expect(a.1 > Self.seeds().count)
    }
}
