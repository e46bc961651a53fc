import BridgeFuzz
import Foundation

/// What the protocol model's checker costs next to a black-box case (issue 39's goal: at
/// most 10%): the seeds and `mutants` mutations of them run against stdio hosts, each
/// case's wall time measured, then the checker (the same one the engine uses) timed on
/// each recorded trace, `repeats` times, in the same run.
enum CheckerCost {
    static func run(seeds: [FuzzInput], hosts: [(String, String)], mutants: Int, repeats: Int) async {
        var rng = FuzzRandom(seed: 1)
        let mutator = FuzzMutator(toggles: false)
        func messagesOnly(_ i: FuzzInput) -> FuzzInput {
            FuzzInput(i.steps.filter { if case .message = $0.kind { return true } else { return false } })
        }
        var cases = seeds.map(messagesOnly)
        for i in 0..<mutants { cases.append(messagesOnly(mutator.mutate(seeds[i % seeds.count], other: seeds[(i * 7) % seeds.count], &rng))) }
        func pad(_ s: String) -> String { s.count >= 30 ? s : s + String(repeating: " ", count: 30 - s.count) }
        print(pad("host") + "  cases   cases (s)  checker (s)     ratio   max/case")
        for (name, command) in hosts {
            let target = StdioTarget(command: command, scenario: nil)
            let checker = target.checker(oracles: Set(Oracle.all))
            var caseSeconds = 0.0, checkSeconds = 0.0, worst = 0.0
            let clock = ContinuousClock()
            for input in cases {
                let t0 = clock.now
                let trace = await target.run(input)
                caseSeconds += seconds(clock.now - t0)
                var sink = FeatureSink()
                let t1 = clock.now
                for _ in 0..<repeats { _ = checker.check(trace, features: &sink) }
                let each = seconds(clock.now - t1) / Double(repeats)
                checkSeconds += each
                worst = max(worst, each)
            }
            print(pad(name) + String(format: " %6d %11.3f %12.4f %8.2f%% %8.2fms", cases.count, caseSeconds, checkSeconds,
                                     100 * checkSeconds / caseSeconds, worst * 1000))
        }
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
