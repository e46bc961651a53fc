/// A value per action (a `[String: Value]` in behaviour): the known actions' values in
/// an array by ``ActionKind``, any other action's in a dictionary. A request reads and
/// an answer writes the memories of its action (`response-not-consumed`,
/// `retry-after-fatal`); for the actions of the protocol that is now no hashing.
///
/// The kind must be the action's (``ActionKind/init(_:)`` of the same name), so that
/// an action is always found where it was put.
struct ActionMemory<Value> {
    /// By ``ActionKind/rawValue``; `.other`'s place is unused. Empty until first written.
    private var byKind: [Value?] = []
    /// The non-nil values in ``byKind``.
    private var known = 0
    private var others: [String: Value] = [:]

    /// The actions remembered.
    var count: Int { known + others.count }
    /// Whether no action is remembered.
    var isEmpty: Bool { known == 0 && others.isEmpty }

    /// The value of `action` (of kind `kind`), or nil; set nil to forget it.
    subscript(action: String, kind: ActionKind) -> Value? {
        get { kind == .other ? others[action] : (byKind.isEmpty ? nil : byKind[Int(kind.rawValue)]) }
        set {
            guard kind != .other else {
                others[action] = newValue
                return
            }
            if byKind.isEmpty {
                guard newValue != nil else { return }
                byKind = Array(repeating: nil, count: ActionKind.count)
            }
            let i = Int(kind.rawValue)
            known += (newValue == nil ? 0 : 1) - (byKind[i] == nil ? 0 : 1)
            byKind[i] = newValue
        }
    }

    /// Forgets `action` (of kind `kind`); returns its value.
    mutating func removeValue(for action: String, kind: ActionKind) -> Value? {
        let value = self[action, kind]
        if value != nil { self[action, kind] = nil }
        return value
    }

    /// Forgets every action (the array kept, for the next journey).
    mutating func removeAll() {
        if known > 0 {
            for i in byKind.indices { byKind[i] = nil }
            known = 0
        }
        if !others.isEmpty { others.removeAll() }
    }
}

extension ActionMemory: Sendable where Value: Sendable {}
