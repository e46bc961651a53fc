/// Interned action names with reference counts, for ``RecentIDs``: a record keeps a
/// 4-byte number instead of a `String`. A name is dropped when its last record goes, so
/// the table is bounded by the ids remembered, whatever a session's actions.
struct ActionTable {
    private var names: [String] = []
    private var references: [Int] = []
    private var numbers: [String: UInt32] = [:]
    private var free: [UInt32] = []
    /// The name retained last and its number: answers follow one another with the same
    /// action (the same `String`, compared without hashing).
    private var cached: (name: String, number: UInt32)?
    /// The number of each known action kind's name while it has references (`.max`: none).
    private var byKind = [UInt32](repeating: .max, count: ActionKind.count)

    /// The name numbered `number`.
    func name(_ number: UInt32) -> String { names[Int(number)] }

    /// The number of `name`, counting one more reference.
    mutating func retain(_ name: String) -> UInt32 {
        if let c = cached, c.name == name {
            references[Int(c.number)] += 1
            return c.number
        }
        if let number = numbers[name] {
            references[Int(number)] += 1
            cached = (name, number)
            return number
        }
        let number: UInt32
        if let reused = free.popLast() {
            number = reused
            names[Int(number)] = name
            references[Int(number)] = 1
        } else {
            number = UInt32(names.count)
            names.append(name)
            references.append(1)
        }
        numbers[name] = number
        cached = (name, number)
        return number
    }

    /// The number of `name`, whose kind is `kind`, counting one more reference: a known
    /// kind is one name, so its number is found without comparing or hashing the name.
    mutating func retain(_ name: String, kind: ActionKind) -> UInt32 {
        guard kind != .other else { return retain(name) }
        let known = byKind[Int(kind.rawValue)]
        if known != .max {
            references[Int(known)] += 1
            return known
        }
        let number = retain(name)
        byKind[Int(kind.rawValue)] = number
        return number
    }

    /// Counts one reference less to `number`; the last one frees it.
    mutating func release(_ number: UInt32) {
        let i = Int(number)
        references[i] -= 1
        guard references[i] == 0 else { return }
        if cached?.number == number { cached = nil }
        for k in byKind.indices where byKind[k] == number { byKind[k] = .max }
        numbers[names[i]] = nil
        names[i] = ""
        free.append(number)
    }
}
