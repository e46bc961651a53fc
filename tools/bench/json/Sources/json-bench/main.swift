import Foundation

// json-bench [--envelopes N] [--rounds R] [--seed S] [--only mix|small|captures] [--profile bridge|foundation|validator]
// Generates a deterministic envelope mix, then parses the same bytes with BridgeJSON and
// with Foundation's JSONSerialization, R rounds each (alternating), and prints the
// median MB/s and envelopes/s of each and their ratio, for the whole mix and for its
// small (< 4 KiB) and large (capture) parts.

var envelopes = 4000
var rounds = 7
var seed: UInt64 = 0xB1D6E
var only: String?
var profile: String?
var args = CommandLine.arguments.dropFirst()
while let flag = args.popFirst() {
    guard let raw = args.popFirst() else {
        FileHandle.standardError.write(Data("missing value after \(flag)\n".utf8))
        exit(2)
    }
    switch flag {
    case "--envelopes": envelopes = Int(raw) ?? envelopes
    case "--rounds": rounds = max(1, Int(raw) ?? rounds)
    case "--seed": seed = UInt64(raw) ?? seed
    case "--only": only = raw
    case "--profile": profile = raw
    default:
        FileHandle.standardError.write(Data("usage: json-bench [--envelopes N] [--rounds R] [--seed S] [--only mix|small|captures] [--profile bridge|foundation|validator]\n".utf8))
        exit(2)
    }
}

let mix = EnvelopeMix(count: envelopes, seed: seed)
let small = mix.items.filter { $0.bytes.count < 4096 }
let large = mix.items.filter { $0.bytes.count >= 4096 }
let workloads = [
    Workload(name: "mix", items: mix.items),
    Workload(name: "small (<4 KiB)", items: small),
    Workload(name: "captures (>=4 KiB)", items: large),
]

// --profile: run just one parser in a loop (for perf record), no comparison.
if let profile {
    var sum = 0
    for w in workloads where !w.arrays.isEmpty && (only == nil || w.name.hasPrefix(only!)) {
        for _ in 0..<rounds {
            sum &+= profile == "foundation" ? w.runFoundation() : profile == "validator" ? w.runValidator() : w.runBridgeJSON()
        }
    }
    print("profiled \(profile): checksum \(sum)")
    exit(0)
}

func mb(_ bytes: Int) -> String { String(format: "%.2f MB", Double(bytes) / 1e6) }
print("json-bench: \(envelopes) envelopes (seed \(seed)), \(rounds) rounds, median per round")
print("  mix: \(mix.items.count) envelopes, \(mb(workloads[0].bytes)); "
      + "small \(small.count) (\(mb(workloads[1].bytes))), captures \(large.count) (\(mb(workloads[2].bytes)))")
print("")
let header = "workload".padding(toLength: 20, withPad: " ", startingAt: 0)
    + "  BridgeJSON MB/s  env/s      Foundation MB/s  env/s      ratio"
print(header)
for w in workloads where !w.arrays.isEmpty && (only == nil || w.name.hasPrefix(only!)) {
    let (bridge, foundation) = compare(w, rounds: rounds)
    func cols(_ t: Timing) -> String {
        let mbps = Double(w.bytes) / 1e6 / t.median
        let eps = Double(w.arrays.count) / t.median
        return String(format: "%15.1f  %-9.0f", mbps, eps)
    }
    let ratio = foundation.median / bridge.median
    print(w.name.padding(toLength: 20, withPad: " ", startingAt: 0) + "  " + cols(bridge) + "  "
          + cols(foundation) + String(format: "  %.2fx", ratio))
}

// The validating-only scan (JSONValidator) against the parser on the same bytes.
print("")
print("workload".padding(toLength: 20, withPad: " ", startingAt: 0) + "  JSONParser MB/s  JSONValidator MB/s  ratio")
for w in workloads where !w.arrays.isEmpty && (only == nil || w.name.hasPrefix(only!)) {
    let (parser, validator) = compareValidator(w, rounds: rounds)
    let mb = Double(w.bytes) / 1e6
    print(w.name.padding(toLength: 20, withPad: " ", startingAt: 0)
          + String(format: "  %15.1f  %18.1f  %.2fx", mb / parser.median, mb / validator.median, parser.median / validator.median))
}
