/// Learns which parts of the target's answers change between identical replays
/// (`--learn N`): the same recording is replayed N times, run 1 is compared with every
/// other run under the same rules, and each pointer where they differ is volatile. A
/// status that changes makes `/payload/status` volatile; an image that changes makes the
/// image member volatile.
enum VolatileLearner {
    /// The volatile pointers found in `runs` (each holding one ``ConnectionRun`` per plan,
    /// in plan order), sorted.
    public static func learn(_ runs: [[ConnectionRun]], plans: [ConnectionPlan], rules: NormalizationRules) -> [JSONPointerPattern] {
        guard let first = runs.first else { return [] }
        let differ = ExchangeDiffer(rules: rules, timing: nil)
        var pointers = Set<String>()
        for other in runs.dropFirst() {
            for (i, plan) in plans.enumerated() where i < first.count && i < other.count {
                guard first[i].error == nil, other[i].error == nil else { continue }
                for d in differ.diff(expected: first[i].observed, actual: other[i].observed, connection: plan.id) {
                    switch d.kind {
                    case .dataDiffers:
                        if let p = d.pointer, !p.isEmpty { pointers.insert(stripImageDetail(p)) }
                    case .statusDiffers:
                        pointers.insert("/payload/status")
                    default:
                        break
                    }
                }
            }
        }
        return pointers.sorted().compactMap { try? JSONPointerPattern($0) }
    }

    /// `/payload/data/imageData/(width)` → `/payload/data/imageData`.
    static func stripImageDetail(_ pointer: String) -> String {
        guard pointer.hasSuffix(")"), let slash = pointer.lastIndex(of: "/"),
              pointer[pointer.index(after: slash)...].hasPrefix("(") else { return pointer }
        return String(pointer[..<slash])
    }
}
