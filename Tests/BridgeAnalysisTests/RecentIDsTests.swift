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
    /// The key a canonical UUID had when it was read a digit at a time through a table:
    /// the reference for ``RecentIDs/Key/encodeUUID(_:into:)``, which reads words.
    static func referenceUUIDKey(_ s: [UInt8]) -> [UInt8]? {
        guard s.count == 36, s[8] == UInt8(ascii: "-"), s[13] == UInt8(ascii: "-"), s[18] == UInt8(ascii: "-"),
              s[23] == UInt8(ascii: "-") else { return nil }
        func digit(_ c: UInt8) -> (value: UInt8, letter: Int)? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return (c - UInt8(ascii: "0"), 0)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return (c - UInt8(ascii: "a") + 10, 1)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return (c - UInt8(ascii: "A") + 10, 2)
            default: return nil
            }
        }
        var out: [UInt8] = [0], letters = 0, i = 0
        while i < 36 {
            if i == 8 || i == 13 || i == 18 || i == 23 { i += 1; continue }
            guard let a = digit(s[i]), let b = digit(s[i + 1]) else { return nil }
            letters |= a.letter | b.letter
            out.append(a.value << 4 | b.value)
            i += 2
        }
        if letters == 3 { return nil }
        out[0] = UInt8(16 << 2 | (letters == 2 ? 2 : 1))
        return out
    }

    /// Every byte value at every place of a UUID (lowercase, uppercase, digits only), and
    /// random ones: the word-at-a-time reading gives the reference's key, or declines
    /// where it does.
    @Test func uuidKeysReadAWordAtATimeAreTheReferences() {
        func key(_ s: [UInt8]) -> [UInt8]? {
            s.withUnsafeBufferPointer { u in
                withUnsafeTemporaryAllocation(byteCount: 64, alignment: 1) { out in
                    RecentIDs.Key.encodeUUID(u, into: out).map { Array(UnsafeRawBufferPointer(rebasing: out[..<$0])) }
                }
            }
        }
        let bases = ["0123abcd-4567-89ef-a0b1-c2d3e4f5a6b7", "0123ABCD-4567-89EF-A0B1-C2D3E4F5A6B7",
                     "01234567-8901-2345-6789-012345678901"].map { Array($0.utf8) }
        var checked = 0, taken = 0
        for base in bases {
            for place in 0..<36 {
                for value in 0...255 {
                    var s = base
                    s[place] = UInt8(value)
                    let want = Self.referenceUUIDKey(s)
                    #expect(key(s) == want, "\(String(decoding: s, as: UTF8.self)) at \(place)")
                    checked += 1
                    if want != nil { taken += 1 }
                }
            }
        }
        var rng = SplitMix64(seed: 0x5EED_0016)
        let alphabet = Array("0123456789abcdefABCDEF-g".utf8)
        for _ in 0..<20_000 {
            var s = (0..<36).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            for dash in [8, 13, 18, 23] where rng.next() % 8 != 0 { s[dash] = UInt8(ascii: "-") }
            #expect(key(s) == Self.referenceUUIDKey(s), "\(String(decoding: s, as: UTF8.self))")
        }
        #expect(checked == 3 * 36 * 256 && taken > 3 * 32 * 16)
    }

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
        // Either side of the fixed stack buffer's 64 bytes (``StackBytes``: ids of 54 and 55
        // bytes): the header (one byte below 32 bytes of id, two from there), then the
        // id's bytes.
        for n in 30...60 {
            let id = String(repeating: "r", count: n)
            let key = RecentIDs.Key.with(id) { Array($0) }
            #expect(key.count - n == (n << 2 < 0x80 ? 1 : 2) && Array(key.suffix(n)) == Array(id.utf8)
                        && key.withUnsafeBytes { RecentIDs.Key.length($0) } == key.count, "length \(n)")
        }
    }
}
