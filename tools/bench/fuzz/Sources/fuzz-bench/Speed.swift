import BridgeFuzz
import BridgeHost
import Foundation

/// In-process execution speed on single-envelope cases.
enum Speed {
    static func run(seeds: [FuzzInput], seconds: Double, engineOnly: Bool = false) async {
        var rng = FuzzRandom(seed: 42)
        let mutator = FuzzMutator(mode: .structureAware, toggles: false)
        let messages = seeds.flatMap(\.messages).filter { $0.count < 4096 }
        var cases: [FuzzInput] = []
        for i in 0..<20_000 {
            let base = FuzzInput(messages: [messages[i % messages.count]])
            var child = base
            if i % 4 != 0 { mutator.apply(rng.oneIn(2) ? .jsonTree : .protocolAware, to: &child, other: nil, &rng) }
            if child.steps.count == 1 { cases.append(child) }
        }
        let target = InProcessTarget()
        let checker = target.checker()
        let messageOracles = MessageOracles()

        func measure(_ label: String, _ body: (FuzzInput) -> Void) {
            let clock = ContinuousClock()
            let start = clock.now
            var n = 0
            while true {
                for c in cases.prefix(1000) { body(c) }
                n += 1000
                let d = clock.now - start
                let s = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
                if s >= seconds {
                    print(String(format: "%-48@ %10.0f execs/s  (%d execs in %.1f s)", label as NSString, Double(n) / s, n, s))
                    return
                }
            }
        }
        var sink = FeatureSink()
        if !engineOnly {
        measure("host only (simulator, one envelope)") { _ = target.execute($0) }
        measure("host + trace oracles") { c in
            sink = FeatureSink()
            _ = checker.check(target.execute(c), features: &sink)
        }
        measure("host + trace oracles + round-trip") { c in
            sink = FeatureSink()
            _ = checker.check(target.execute(c), features: &sink)
            _ = MessageOracles(oracles: [.roundTrip]).check(c.steps[0].message!)
        }
        measure("host + all oracles (incl. JSONSerialization)") { c in
            sink = FeatureSink()
            _ = checker.check(target.execute(c), features: &sink)
            _ = messageOracles.check(c.steps[0].message!)
        }
        }
        // The engine end to end: mutate, run, judge, keep, on single-envelope seeds.
        for (label, oracles) in [("engine loop, trace oracles only", Set(Oracle.all).subtracting([.roundTrip, .jsonAgreement])),
                                 ("engine loop, all oracles", Set(Oracle.all))] {
            let engine = FuzzEngine(target: target, configuration: FuzzConfiguration(
                seed: 1, oracles: oracles, maxSeconds: seconds, minimize: false, toggles: false, singleMessage: true))
            await engine.addSeeds(messages.map { FuzzInput(messages: [$0]) })
            await engine.run()
            print(String(format: "%-48@ %10.0f execs/s  (%llu execs, corpus %d, features %d)",
                         "\(label) (1-envelope)" as NSString, engine.stats.execsPerSecond,
                         engine.stats.execs, engine.stats.corpus, engine.stats.features))
        }
    }
}
