import BridgeJSON

/// Mutations of a parsed message's JSON tree (issue 8's JSON-tree family): drop,
/// duplicate, reorder and rename members; swap a value's type; boundary numbers; hostile
/// strings (long, empty, NUL, lone surrogate, RTL, non-normalized); nesting near and past
/// the limits; duplicate keys. The result is written back with ``JSONWriter`` (plus the
/// byte substitutions for what a Swift string cannot hold, see ``MessageWriter``).
struct JSONTreeMutator {
    enum Kind: Int, CaseIterable {
        case dropMember, duplicateMember, reorderMembers, renameKey, addMember, swapType, boundaryNumber,
             hostileString, longString, loneSurrogate, nest, emptyContainer, dropElement, duplicateElement, invalidNumber
    }

    static let weights: [Int] = [8, 8, 4, 6, 6, 10, 8, 8, 3, 3, 3, 3, 4, 4, 3]

    /// Mutates one node of `value`; returns the kind applied.
    @discardableResult
    static func mutate(_ value: inout JSONValue, _ rng: inout FuzzRandom) -> Kind {
        let paths = JSONPath.all(in: value)
        let kind = Kind(rawValue: rng.weighted(weights))!
        let path = rng.pick(paths) ?? JSONPath()
        value.modify(at: path.components[...]) { node in apply(kind, to: &node, &rng) }
        return kind
    }

    static func apply(_ kind: Kind, to node: inout JSONValue, _ rng: inout FuzzRandom) {
        switch kind {
        case .dropMember:
            if case .object(var o) = node, !o.members.isEmpty {
                o.members.remove(at: rng.below(o.members.count))
                node = .object(o)
            } else { node = randomScalar(&rng) }
        case .duplicateMember:
            if case .object(var o) = node, let m = rng.pick(o.members) {
                var copy = m
                if rng.oneIn(2) { copy.value = randomScalar(&rng) }
                o.members.insert(copy, at: rng.below(o.members.count + 1))
                node = .object(o)
            } else { node = .object(JSONObject([.init(key: "a", value: node), .init(key: "a", value: node)])) }
        case .reorderMembers:
            if case .object(var o) = node { o.members.shuffle(using: &rng); node = .object(o) }
            else if case .array(var a) = node { a.shuffle(using: &rng); node = .array(a) }
        case .renameKey:
            if case .object(var o) = node, !o.members.isEmpty {
                let i = rng.below(o.members.count)
                o.members[i].key = randomKey(&rng, current: o.members[i].key)
                node = .object(o)
            }
        case .addMember:
            if case .object(var o) = node {
                o.members.insert(.init(key: randomKey(&rng, current: ""), value: randomValue(&rng, depth: 2)),
                                 at: rng.below(o.members.count + 1))
                node = .object(o)
            } else if case .array(var a) = node {
                a.insert(randomValue(&rng, depth: 2), at: rng.below(a.count + 1))
                node = .array(a)
            }
        case .swapType:
            node = randomValue(&rng, depth: 1, avoiding: node.kindName)
        case .boundaryNumber:
            node = .number(JSONNumber(uncheckedLexeme: rng.pick(FuzzDictionary.numbers)!))
        case .hostileString:
            node = .string(hostileString(&rng))
        case .longString:
            // A megabyte only now and then: each one costs milliseconds to run.
            let n = rng.oneIn(32) ? rng.pick([65_536, 1 << 20])! : rng.pick([63, 64, 65, 255, 256, 1024, 4096])!
            node = .string(String(repeating: rng.oneIn(3) ? "é" : "a", count: n))
        case .loneSurrogate:
            let s = node.stringValue ?? "x"
            let at = rng.below(s.unicodeScalars.count + 1)
            var scalars = Array(s.unicodeScalars)
            scalars.insert(rng.oneIn(2) ? MessageWriter.loneHighMarker : MessageWriter.loneLowMarker, at: at)
            var out = String.UnicodeScalarView()
            out.append(contentsOf: scalars)
            node = .string(String(out))
        case .nest:
            let depth = rng.pick([30, 62, 63, 64, 65, 66, 100, 511, 512, 513, 1000])!
            var v = node
            let useArrays = rng.oneIn(2)
            for _ in 0..<depth { v = useArrays ? .array([v]) : .object(JSONObject([.init(key: "n", value: v)])) }
            node = v
        case .emptyContainer:
            node = rng.oneIn(2) ? .object(JSONObject()) : .array([])
        case .dropElement:
            if case .array(var a) = node, !a.isEmpty { a.remove(at: rng.below(a.count)); node = .array(a) }
            else { node = .null }
        case .duplicateElement:
            if case .array(var a) = node, let e = rng.pick(a) {
                for _ in 0..<rng.smallCount(max: 8) { a.insert(e, at: rng.below(a.count + 1)) }
                node = .array(a)
            } else { node = .array([node, node]) }
        case .invalidNumber:
            node = .number(JSONNumber(uncheckedLexeme: rng.pick(["01", "1.", ".5", "+1", "-", "1e", "0x10", "NaN", "-Infinity", "1_000", "١"])!))
        }
    }

    static func randomKey(_ rng: inout FuzzRandom, current: String) -> String {
        switch rng.below(5) {
        case 0: return rng.pick(FuzzDictionary.envelopeKeys)!
        case 1: return rng.pick(FuzzDictionary.dataKeys)!
        case 2: return current.uppercased()
        case 3: return rng.pick(FuzzDictionary.strings)!
        default: return current + rng.pick(["", " ", "\u{0000}", "_", "s"])!
        }
    }

    static func hostileString(_ rng: inout FuzzRandom) -> String {
        switch rng.below(4) {
        case 0: return rng.pick(FuzzDictionary.strings)!
        case 1: return rng.pick(FuzzDictionary.actions + FuzzDictionary.nearMissActions)!
        case 2: return rng.pick(FuzzDictionary.dataStrings + FuzzDictionary.errorCodes)!
        default: return rng.pick(FuzzDictionary.strings)! + rng.pick(FuzzDictionary.actions)! + rng.pick(FuzzDictionary.strings)!
        }
    }

    static func randomScalar(_ rng: inout FuzzRandom) -> JSONValue {
        switch rng.below(5) {
        case 0: return .null
        case 1: return .bool(rng.oneIn(2))
        case 2: return .number(JSONNumber(uncheckedLexeme: rng.pick(FuzzDictionary.numbers)!))
        default: return .string(hostileString(&rng))
        }
    }

    static func randomValue(_ rng: inout FuzzRandom, depth: Int, avoiding kind: String? = nil) -> JSONValue {
        for _ in 0..<4 {
            let v: JSONValue
            switch rng.below(depth > 0 ? 7 : 5) {
            case 5: v = .array((0..<rng.below(3)).map { _ in randomValue(&rng, depth: depth - 1) })
            case 6:
                v = .object(JSONObject((0..<rng.below(3)).map { _ in
                    .init(key: rng.pick(FuzzDictionary.dataKeys)!, value: randomValue(&rng, depth: depth - 1))
                }))
            default: v = randomScalar(&rng)
            }
            if v.kindName != kind { return v }
        }
        return .null
    }
}
