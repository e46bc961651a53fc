import BridgeJSON

/// Shrinks a failing case while it still fails the same way (same oracle and signature):
/// delta debugging over the steps (ddmin), then zeroing delays, then per message over
/// the JSON tree (drop members and elements, simplify values, halve long strings), then
/// over the bytes of messages that are not JSON. Bounded by ``budget`` executions.
public struct Minimizer: Sendable {
    /// Most executions spent on one case. Default 3,000.
    public var budget: Int
    /// When minimizing must stop, whatever is left of ``budget`` (the run's share of its
    /// time budget for minimization).
    public var deadline: ContinuousClock.Instant?
    /// Set by ``minimize(_:reproduces:)`` when it stopped on the budget or the deadline
    /// rather than because nothing smaller reproduces.
    public private(set) var cutShort = false

    /// Creates a minimizer.
    public init(budget: Int = 3000, deadline: ContinuousClock.Instant? = nil) {
        self.budget = budget
        self.deadline = deadline
    }

    /// The smallest case found for which `reproduces` still holds.
    public mutating func minimize(_ input: FuzzInput, reproduces: (FuzzInput) async -> Bool) async -> FuzzInput {
        let counter = RunCounter(budget: budget)
        let result = await shrink(input, counter: counter, reproduces: reproduces)
        cutShort = counter.cut || counter.runs >= counter.budget
        return result
    }

    /// Executions spent and allowed (a class: the nested test function updates it).
    private final class RunCounter {
        var runs = 0
        var budget: Int
        var cut = false
        init(budget: Int) { self.budget = budget }
    }

    private func shrink(_ input: FuzzInput, counter: RunCounter, reproduces: (FuzzInput) async -> Bool) async -> FuzzInput {
        var runs: Int { counter.runs }
        var budget: Int { counter.budget }
        let deadline = self.deadline
        func test(_ candidate: FuzzInput) async -> Bool {
            if let deadline, ContinuousClock.now >= deadline { counter.budget = counter.runs }
            guard counter.runs < counter.budget else { counter.cut = true; return false }
            counter.runs += 1
            return await reproduces(candidate)
        }
        var best = input
        // 1. ddmin over steps.
        var n = 2
        while best.steps.count >= 2 && runs < budget {
            let chunk = (best.steps.count + n - 1) / n
            var reduced = false
            var start = 0
            while start < best.steps.count && runs < budget {
                var candidate = best
                candidate.steps.removeSubrange(start..<min(start + chunk, candidate.steps.count))
                if await test(candidate) {
                    best = candidate
                    reduced = true
                    n = max(n - 1, 2)
                } else {
                    start += chunk
                }
            }
            if !reduced {
                if n >= best.steps.count { break }
                n = min(n * 2, best.steps.count)
            }
        }
        if best.steps.count == 1, runs < budget {
            // A single step may still be removable (an empty case can fail pending-drains? no; try anyway).
            if await test(FuzzInput()) { return FuzzInput() }
        }
        // 2. Delays to zero where they do not matter.
        for i in best.steps.indices where best.steps[i].delayMs != 0 && runs < budget {
            var candidate = best
            candidate.steps[i].delayMs = 0
            if await test(candidate) { best = candidate }
        }
        // 3. Each message: JSON tree, then bytes.
        for i in best.steps.indices where runs < budget {
            guard let bytes = best.steps[i].message else { continue }
            var current = bytes
            if var tree = try? JSONParser(limits: MessageWriter.mutationLimits).parse(bytes).value {
                // Canonical form first (drops whitespace); keep it only if it still fails.
                var candidate = best
                candidate.steps[i].kind = .message(JSONWriter().bytes(tree))
                if candidate != best, await test(candidate) { best = candidate; current = candidate.steps[i].message! }
                if current == JSONWriter().bytes(tree) {
                    var changed = true
                    while changed && runs < budget {
                        changed = false
                        for path in JSONPath.all(in: tree, limit: 256).reversed() where !path.components.isEmpty && runs < budget {
                            for simpler in simplifications(of: tree, at: path) {
                                var c = best
                                c.steps[i].kind = .message(JSONWriter().bytes(simpler))
                                if await test(c) {
                                    best = c
                                    tree = simpler
                                    changed = true
                                    break
                                }
                            }
                            if changed { break }
                        }
                    }
                    current = best.steps[i].message!
                }
            }
            if current.count <= 4096 {
                best.steps[i].kind = .message(await ddminBytes(current, runsLeft: { budget - runs }) { b in
                    var c = best
                    c.steps[i].kind = .message(b)
                    return await test(c)
                })
            }
        }
        return best
    }

    /// Simpler versions of `tree` at `path`: the node removed (member or element), then
    /// the node replaced by simpler values.
    func simplifications(of tree: JSONValue, at path: JSONPath) -> [JSONValue] {
        var out: [JSONValue] = []
        let parentPath = path.components.dropLast()
        if let last = path.components.last {
            var removed = tree
            removed.modify(at: parentPath) { parent in
                switch (last, parent) {
                case (.member(let i), .object(var o)) where i < o.members.count:
                    o.members.remove(at: i); parent = .object(o)
                case (.element(let i), .array(var a)) where i < a.count:
                    a.remove(at: i); parent = .array(a)
                default: break
                }
            }
            out.append(removed)
        }
        guard let node = tree.node(at: path.components[...]) else { return out }
        var replacements: [JSONValue] = []
        switch node {
        case .string(let s) where s.count > 8:
            replacements.append(.string(String(s.prefix(s.count / 2))))
            replacements.append(.string(""))
        case .object(let o) where !o.isEmpty:
            replacements.append(.object(JSONObject()))
        case .array(let a) where !a.isEmpty:
            replacements.append(.array([]))
            if a.count == 1 { replacements.append(a[0]) }
        case .number(let n) where n.lexeme != "0":
            replacements.append(.integer(0))
        default: break
        }
        for r in replacements {
            var t = tree
            t.modify(at: path.components[...]) { $0 = r }
            out.append(t)
        }
        return out
    }

    func ddminBytes(_ bytes: [UInt8], runsLeft: () -> Int, _ test: ([UInt8]) async -> Bool) async -> [UInt8] {
        var best = bytes
        var n = 2
        while best.count >= 2 && runsLeft() > 0 {
            let chunk = (best.count + n - 1) / n
            var reduced = false
            var start = 0
            while start < best.count && runsLeft() > 0 {
                var candidate = best
                candidate.removeSubrange(start..<min(start + chunk, candidate.count))
                if await test(candidate) {
                    best = candidate
                    reduced = true
                    n = max(n - 1, 2)
                } else {
                    start += chunk
                }
            }
            if !reduced {
                if n >= best.count { break }
                n = min(n * 2, best.count)
            }
        }
        return best
    }
}
