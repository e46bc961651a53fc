import BridgeFuzz
import Foundation

/// The bug-finding benchmark: for each broken variant, time to the first finding that
/// shows its bug, structure-aware (`bridgescope fuzz`'s engine) against plain byte
/// mutation of the same case files (libFuzzer-style operators, no dictionary), same
/// target, same seeds, same process, same budget; median over several seeds.
enum BugFinding {
    static func run(seeds: [FuzzInput], budget: Double, runs: Int, only: String?) async {
        print("bug-finding benchmark: \(seeds.count) journey seeds, budget \(Int(budget)) s per search, \(runs) seeds per mode")
        print(String(format: "%-30@ %-12@ %10@ %10@ %9@  %@", "variant" as NSString, "mode" as NSString, "median s" as NSString,
                     "found" as NSString, "execs" as NSString, "times (s)" as NSString))
        var ratios: [Double] = []
        for v in Variant.all where only == nil || v.name == only {
            var medians: [FuzzMutator.Mode: Double] = [:]
            for mode in [FuzzMutator.Mode.structureAware, .bytesOnly] {
                var times: [Double] = []
                var found = 0
                var execs: [UInt64] = []
                for r in 0..<runs {
                    let (t, n) = await search(v, mode: mode, seed: UInt64(r + 1), seeds: seeds, budget: budget)
                    if let t { times.append(t); found += 1 } else { times.append(budget) }
                    execs.append(n)
                }
                let sorted = times.sorted()
                let median = sorted[sorted.count / 2]
                medians[mode] = median
                let shown = times.map { $0 >= budget ? ">\(Int(budget))" : String(format: "%.2f", $0) }.joined(separator: " ")
                print(String(format: "%-30@ %-12@ %10@ %7d/%-2d %9llu  %@", v.name as NSString, mode.rawValue as NSString,
                             (found * 2 > runs ? String(format: "%.2f", median) : ">\(Int(budget))") as NSString,
                             found, runs, execs.sorted()[execs.count / 2], shown as NSString))
            }
            let ratio = medians[.bytesOnly]! / max(medians[.structureAware]!, 0.001)
            ratios.append(ratio)
            print(String(format: "%-30@ speed-up (median bytes / median structure): %@%.0fx", v.name as NSString,
                         medians[.bytesOnly]! >= budget ? ">=" : "", ratio))
        }
        let sorted = ratios.sorted()
        if !sorted.isEmpty {
            print(String(format: "median speed-up over variants: %.0fx (budget-capped times make byte-level ratios lower bounds)", sorted[sorted.count / 2]))
        }
    }

    /// Seconds to the first finding matching the variant, or nil within the budget.
    static func search(_ v: Variant, mode: FuzzMutator.Mode, seed: UInt64, seeds: [FuzzInput], budget: Double) async -> (Double?, UInt64) {
        let target = InProcessTarget(scenario: v.scenario, interceptor: v.make())
        let engine = FuzzEngine(target: target, configuration: FuzzConfiguration(seed: seed, mode: mode, maxSeconds: budget, minimize: false))
        let clock = ContinuousClock()
        let start = clock.now
        nonisolated(unsafe) var foundAt: Double?
        engine.onFinding = { f in
            if foundAt == nil && f.violation.key.hasPrefix(v.expected) {
                let d = clock.now - start
                foundAt = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            }
        }
        await engine.addSeeds(seeds)
        if foundAt == nil { await engine.run { foundAt != nil } }
        return (foundAt, engine.stats.execs)
    }
}
