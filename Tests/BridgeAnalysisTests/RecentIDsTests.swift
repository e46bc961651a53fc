@testable import BridgeAnalysis
import Testing

/// The answered-id memory before issue 21 (a dictionary and a ring), written out as the
/// reference that `RequestIDsTests` hold `RecentIDs` to through `RequestIDs` (its only
/// user), the ids those tests draw from, and the keys the index compares.
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
