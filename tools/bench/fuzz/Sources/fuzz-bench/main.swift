import BridgeFuzz
import Foundation

// fuzz-bench speed [SECONDS] | variants [BUDGET_SECONDS] [RUNS]
let args = CommandLine.arguments.dropFirst()
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
func loadSeeds(_ filter: (String) -> Bool = { _ in true }) -> [FuzzInput] {
    let dir = root.appendingPathComponent("corpus/seeds")
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".jsonl") && filter($0) }.sorted()
    return names.map { FuzzCase.parse([UInt8](FileManager.default.contents(atPath: dir.appendingPathComponent($0).path)!)).input }
}

switch args.first ?? "speed" {
case "speed":
    await Speed.run(seeds: loadSeeds(), seconds: Double(args.dropFirst().first ?? "3") ?? 3)
case "engine":
    await Speed.run(seeds: loadSeeds(), seconds: Double(args.dropFirst().first ?? "3") ?? 3, engineOnly: true)
case "hunt":
    let seconds = Double(args.dropFirst().first ?? "10") ?? 10
    let engine = FuzzEngine(target: InProcessTarget(), configuration: FuzzConfiguration(seed: UInt64(args.dropFirst(2).first ?? "1") ?? 1, maxSeconds: seconds))
    engine.onFinding = { f in
        print("FINDING \(f.violation) after \(f.execs) execs, \(String(format: "%.1f", f.seconds)) s")
        print(String(decoding: FuzzCase(input: f.input).serialized().prefix(1500), as: UTF8.self))
    }
    await engine.addSeeds(loadSeeds())
    await engine.run()
    print("execs \(engine.stats.execs) (\(Int(engine.stats.execsPerSecond))/s) corpus \(engine.stats.corpus) features \(engine.stats.features)")
case "variants":
    let rest = Array(args.dropFirst())
    await BugFinding.run(seeds: loadSeeds { $0.hasPrefix("journey-") }, budget: Double(rest.first ?? "60") ?? 60,
                         runs: Int(rest.dropFirst().first ?? "5") ?? 5, only: rest.dropFirst(2).first)
case "checker":
    let rest = Array(args.dropFirst())
    let bin = root.appendingPathComponent(".build/release/bridgescope").path
    await CheckerCost.run(seeds: loadSeeds(), hosts: [
        ("swift host (stdio)", "\(bin) host --stdio"),
        ("python host", "python3 \(root.path)/tools/hosts/python/bridge_host.py"),
        ("node host (varying captures)", "node \(root.path)/tools/hosts/node/bridge_host.js"),
    ], mutants: Int(rest.first ?? "200") ?? 200, repeats: Int(rest.dropFirst().first ?? "20") ?? 20)
default:
    print("usage: fuzz-bench speed [SECONDS] | engine [SECONDS] | hunt [SECONDS] [SEED] | variants [BUDGET] [RUNS] [VARIANT] | checker [MUTANTS] [REPEATS]")
}
