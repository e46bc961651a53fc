import BridgeJSON
import Foundation

/// One timed workload: the same envelopes as `[UInt8]` for BridgeJSON and as `Data` for
/// Foundation, prepared before any timing.
struct Workload {
    var name: String
    var arrays: [[UInt8]]
    var datas: [Data]
    var bytes: Int

    init(name: String, items: [EnvelopeMix.Item]) {
        self.name = name
        arrays = items.map(\.bytes)
        datas = arrays.map { Data($0) }
        bytes = arrays.reduce(0) { $0 + $1.count }
    }

    /// Parses every envelope once with BridgeJSON; returns a checksum so the work stays.
    func runBridgeJSON() -> Int {
        let parser = JSONParser()
        var sum = 0
        for a in arrays {
            do {
                let doc = try a.withUnsafeBytes { try parser.parse($0) }
                sum &+= doc.value.objectValue?.count ?? 0
            } catch {
                fatalError("BridgeJSON rejected a benchmark envelope: \(error)")
            }
        }
        return sum
    }

    /// Parses every envelope once with Foundation's JSONSerialization.
    /// `JSONValidator` over the same bytes: the recorder's question ("valid?") without
    /// building values. Returns how many were valid (all of them).
    func runValidator() -> Int {
        let validator = JSONValidator()
        var sum = 0
        for a in arrays {
            guard validator.isValid(a) else { fatalError("JSONValidator rejected a benchmark envelope") }
            sum &+= 1
        }
        return sum
    }

    func runFoundation() -> Int {
        var sum = 0
        for d in datas {
            guard let object = try? JSONSerialization.jsonObject(with: d) as? [String: Any] else {
                fatalError("JSONSerialization rejected a benchmark envelope")
            }
            sum &+= object.count
        }
        return sum
    }
}

/// Seconds per round for one parser on one workload.
struct Timing {
    var seconds: [Double] = []
    var median: Double { seconds.sorted()[seconds.count / 2] }
    var best: Double { seconds.min() ?? .nan }
}

func measure(_ body: () -> Int) -> (Double, Int) {
    let clock = ContinuousClock()
    var result = 0
    let elapsed = clock.measure { result = body() }
    let c = elapsed.components
    return (Double(c.seconds) + Double(c.attoseconds) * 1e-18, result)
}

/// Runs `rounds` rounds, alternating which parser goes first, after one warm-up each.
func compare(_ w: Workload, rounds: Int) -> (bridge: Timing, foundation: Timing) {
    var bridge = Timing(), foundation = Timing()
    let check = (w.runBridgeJSON(), w.runFoundation())
    precondition(check.0 == check.1, "the parsers disagree on member counts: \(check)")
    for r in 0..<rounds {
        if r % 2 == 0 {
            bridge.seconds.append(measure(w.runBridgeJSON).0)
            foundation.seconds.append(measure(w.runFoundation).0)
        } else {
            foundation.seconds.append(measure(w.runFoundation).0)
            bridge.seconds.append(measure(w.runBridgeJSON).0)
        }
    }
    return (bridge, foundation)
}

/// The parser against the validator (both BridgeJSON), alternating, `rounds` rounds.
func compareValidator(_ w: Workload, rounds: Int) -> (parser: Timing, validator: Timing) {
    var parser = Timing(), validator = Timing()
    precondition(w.runValidator() == w.arrays.count)
    _ = w.runBridgeJSON()
    for r in 0..<rounds {
        if r % 2 == 0 {
            parser.seconds.append(measure(w.runBridgeJSON).0)
            validator.seconds.append(measure(w.runValidator).0)
        } else {
            validator.seconds.append(measure(w.runValidator).0)
            parser.seconds.append(measure(w.runBridgeJSON).0)
        }
    }
    return (parser, validator)
}
