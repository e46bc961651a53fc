import BridgeJSON

/// A path to one node inside a ``JSONValue``: member and element indexes from the root.
struct JSONPath: Sendable, Hashable {
    enum Component: Sendable, Hashable {
        case member(Int)
        case element(Int)
    }
    var components: [Component] = []

    /// Every node of `value` (root first, depth first), at most `limit` of them.
    static func all(in value: JSONValue, limit: Int = 512) -> [JSONPath] {
        var out: [JSONPath] = []
        var stack: [(JSONValue, JSONPath)] = [(value, JSONPath())]
        while let (v, p) = stack.popLast(), out.count < limit {
            out.append(p)
            switch v {
            case .object(let o):
                for (i, m) in o.members.enumerated().reversed() {
                    stack.append((m.value, JSONPath(components: p.components + [.member(i)])))
                }
            case .array(let a):
                for (i, e) in a.enumerated().reversed() {
                    stack.append((e, JSONPath(components: p.components + [.element(i)])))
                }
            default: break
            }
        }
        return out
    }
}

extension JSONValue {
    /// Runs `body` on the node at `path` (nothing happens when the path does not exist).
    mutating func modify(at path: ArraySlice<JSONPath.Component>, _ body: (inout JSONValue) -> Void) {
        guard let first = path.first else {
            body(&self)
            return
        }
        switch (first, self) {
        case (.member(let i), .object(var o)) where i < o.members.count:
            self = .null  // release the reference so the object is uniquely held
            o.members[i].value.modify(at: path.dropFirst(), body)
            self = .object(o)
        case (.element(let i), .array(var a)) where i < a.count:
            self = .null
            a[i].modify(at: path.dropFirst(), body)
            self = .array(a)
        default:
            break
        }
    }

    /// The node at `path`, if it exists.
    func node(at path: ArraySlice<JSONPath.Component>) -> JSONValue? {
        guard let first = path.first else { return self }
        switch (first, self) {
        case (.member(let i), .object(let o)) where i < o.members.count: return o.members[i].value.node(at: path.dropFirst())
        case (.element(let i), .array(let a)) where i < a.count: return a[i].node(at: path.dropFirst())
        default: return nil
        }
    }
}
