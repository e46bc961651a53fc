@testable import BridgeAnalysis
import Testing

/// `RecentIDs` (a byte arena and an open-addressing index) held to the dictionary and
/// ring it replaced, written out below as the reference: the same random inserts,
/// removals and lookups give the same answers, quirk included (evicting a slot forgets
/// its id even when the id was removed and inserted again since).
struct RecentIDsTests {
    /// The analyzer's answered-id memory before issue 21, verbatim.
    struct Reference {
        var actions: [String: String] = [:]
        var order: [String] = []
        var head = 0
        let capacity: Int

        init(capacity: Int) { self.capacity = Swift.max(1, capacity) }

        func action(of id: String) -> String? { actions[id] }

        mutating func insert(_ id: String, action: String) {
            if actions.updateValue(action, forKey: id) != nil { return }
            if order.count < capacity {
                order.append(id)
            } else {
                actions[order[head]] = nil
                order[head] = id
                head = (head + 1) % capacity
            }
        }

        mutating func remove(_ id: String) { actions[id] = nil }
    }

    /// Ids that collide in every way the key encoding cares about: empty and short ones,
    /// 0 to 300 bytes, non-ASCII, UUIDs in lowercase, uppercase and mixed case (three
    /// different ids), all-digit UUIDs, near-UUIDs, and ids that are prefixes of others.
    static func pool(_ rng: inout SplitMix64, size: Int) -> [String] {
        func hex(_ n: Int, upper: Bool) -> String {
            String((0..<n).map { _ in Array(upper ? "0123456789ABCDEF" : "0123456789abcdef")[Int(rng.next() % 16)] })
        }
        var ids: [String] = ["", "a", "ab", "abc", "é", "a-b", String(repeating: "x", count: 300)]
        while ids.count < size {
            switch rng.next() % 8 {
            case 0:
                let u = [8, 4, 4, 4, 12].map { hex($0, upper: false) }.joined(separator: "-")
                ids += [u, u.uppercased()]
                var mixed = Array(u)
                if let i = mixed.firstIndex(where: \.isLetter) { mixed[i] = Character(mixed[i].uppercased()) }
                ids.append(String(mixed))
            case 1: ids.append([8, 4, 4, 4, 12].map { n in String((0..<n).map { _ in Character(String(rng.next() % 10)) }) }.joined(separator: "-"))
            case 2:
                let u = [8, 4, 4, 4, 12].map { hex($0, upper: false) }.joined(separator: "-")
                ids += [String(u.map { $0 == "-" ? "_" : $0 }), String(u.dropLast()), u + "0", "g" + u.dropFirst()]
            case 3:
                let n = Int(rng.next() % 301)
                ids.append(String((0..<n).map { _ in Character(Unicode.Scalar(UInt8(32 + rng.next() % 95))) }))
            case 4: ids.append(String(repeating: "ü", count: Int(rng.next() % 40)))
            case 5:
                let base = ids[Int(rng.next() % UInt64(ids.count))]
                ids.append(base + "z")
            default: ids.append(hex(Int(rng.next() % 6), upper: rng.next() % 2 == 0))
            }
        }
        return ids
    }

    @Test(arguments: [(1, 3), (2, 5), (3, 10), (7, 20), (16, 40), (50, 120), (600, 1_500)])
    func agreesWithTheDictionaryAndRing(capacity: Int, poolSize: Int) {
        var rng = SplitMix64(seed: UInt64(capacity * 7_919 + poolSize))
        let ids = Self.pool(&rng, size: poolSize)
        let actions = ["capability.query", "nfc.read", "a", "", String(repeating: "long.action", count: 9)]
        var reference = Reference(capacity: capacity)
        var recent = RecentIDs(capacity: capacity)
        let operations = Swift.max(4_000, capacity * 40)
        for step in 0..<operations {
            // Recently used ids again and again, so removals and re-inserts meet their own slots.
            let pick = rng.next() % 4 == 0 ? Int(rng.next() % UInt64(Swift.min(ids.count, capacity + 2))) : Int(rng.next() % UInt64(ids.count))
            let id = ids[pick]
            switch rng.next() % 8 {
            case 0, 1, 2, 3:
                let action = actions[Int(rng.next() % UInt64(actions.count))]
                reference.insert(id, action: action)
                recent.insert(id, action: action)
            case 4, 5:
                reference.remove(id)
                recent.remove(id)
            default:
                break
            }
            #expect(recent.action(of: id) == reference.action(of: id), "step \(step), id \(id.debugDescription)")
            #expect(recent.count == reference.actions.count, "step \(step)")
            if step % 97 == 0 {
                for other in ids where recent.action(of: other) != reference.action(of: other) {
                    Issue.record("step \(step): \(other.debugDescription) is \(String(describing: recent.action(of: other))), expected \(String(describing: reference.action(of: other)))")
                }
            }
        }
    }

    /// The quirk, spelled out: a slot's eviction forgets its id even when the id was
    /// removed and inserted again since; and with the id's old slot next in line, the
    /// re-inserted id is forgotten at once.
    @Test func evictingAnOldSlotForgetsTheIdItHeld() {
        var recent = RecentIDs(capacity: 2)
        recent.insert("a", action: "x")
        recent.remove("a")
        recent.insert("a", action: "y")
        #expect(recent.action(of: "a") == "y")
        recent.insert("b", action: "z")
        #expect(recent.action(of: "a") == nil)
        #expect(recent.action(of: "b") == "z")
        var one = RecentIDs(capacity: 1)
        one.insert("a", action: "x")
        one.remove("a")
        one.insert("a", action: "x")
        #expect(one.action(of: "a") == nil && one.count == 0)
    }

    /// Equal ids have equal keys, different ids different keys (the index compares keys).
    @Test func keysAreExact() {
        var rng = SplitMix64(seed: 21)
        let ids = Array(Set(Self.pool(&rng, size: 2_000)))
        var seen: [[UInt8]: String] = [:]
        for id in ids {
            let key = RecentIDs.Key.with(id) { Array($0) }
            #expect(key.count <= RecentIDs.Key.maxLength(id.utf8.count))
            #expect(key.withUnsafeBytes { RecentIDs.Key.length($0) } == key.count)
            if let other = seen.updateValue(id, forKey: key) { Issue.record("\(id.debugDescription) and \(other.debugDescription) share a key") }
        }
        #expect(RecentIDs.Key.with("0123abcd-0000-4000-a000-0123456789ab") { $0.count } == 17)
        #expect(RecentIDs.Key.with("0123ABCD-0000-4000-A000-0123456789AB") { $0.count } == 17)
        #expect(RecentIDs.Key.with("0123aBCD-0000-4000-A000-0123456789AB") { $0.count } == 38)
    }
}
