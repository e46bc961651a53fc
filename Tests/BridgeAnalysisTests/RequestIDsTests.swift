@testable import BridgeAnalysis
import Testing

/// `RequestIDs` (open requests and answered ids in one index) held to the two tables it
/// replaced: a dictionary of open requests keyed by `String` beside the answered-id
/// memory (``RecentIDsTests/Reference``, the dictionary and ring before issue 21). The
/// same random requests and responses, as the analyzer makes them, must find the same
/// ids open, answered or new, with the same actions, through ring evictions, reused
/// ids, the open-request cap and table growth.
struct RequestIDsTests {
    /// What the analyzer did with the two tables.
    struct Model {
        var open: [String: OpenRequest] = [:]
        var answered: RecentIDsTests.Reference

        mutating func request(_ r: OpenRequest, cap: Int) -> RecentIDs.Place? {
            if open[r.id] != nil { return .open(slot: -1) }
            var place: RecentIDs.Place = .absent
            if answered.action(of: r.id) != nil {
                place = .answered(record: -1)
                answered.remove(r.id)
            }
            if open.count < cap { open[r.id] = r }
            return place
        }

        mutating func response(_ id: String) -> String? {
            guard let r = open.removeValue(forKey: id) else { return nil }
            answered.insert(id, action: r.action)
            return r.action
        }
    }

    static func request(_ id: String, _ action: String, record: Int) -> OpenRequest {
        OpenRequest(id: id, action: action, kind: ActionKind(action), sent: 0, record: record,
                    dataKey: RequestData(rawData: nil, decodedData: nil))
    }

    /// `place` without its record or slot.
    static func shape(_ place: RecentIDs.Place) -> String {
        switch place {
        case .open: "open"
        case .answered: "answered"
        case .absent: "absent"
        }
    }

    @Test(arguments: [(1, 3, 2), (2, 6, 3), (3, 12, 100), (7, 20, 10), (8, 30, 5), (16, 40, 1_000), (50, 150, 40), (600, 1_500, 1_000)])
    func agreesWithTheTwoTables(capacity: Int, poolSize: Int, cap: Int) {
        var rng = SplitMix64(seed: UInt64(capacity * 31 + poolSize * 7 + cap))
        let ids = RecentIDsTests.pool(&rng, size: poolSize)
        let actions = ["capability.query", "camera.document.capture", "nfc.read", "a", "", String(repeating: "long.action", count: 9)]
        var model = Model(answered: RecentIDsTests.Reference(capacity: capacity))
        var table = RequestIDs(rememberIDs: capacity)
        for step in 0..<Swift.max(6_000, capacity * 40) {
            let pick = rng.next() % 3 == 0 ? Int(rng.next() % UInt64(Swift.min(ids.count, capacity + 3))) : Int(rng.next() % UInt64(ids.count))
            let id = ids[pick]
            if rng.next() % 2 == 0 {
                // A request, as ``SessionAnalyzer/request(_:id:_:)`` makes it.
                let action = actions[Int(rng.next() % UInt64(actions.count))]
                let expected = model.request(Self.request(id, action, record: step), cap: cap)!
                let found = table.lookup(id)
                #expect(Self.shape(found.place) == Self.shape(expected), "step \(step): request \(id.debugDescription)")
                var unchanged = true
                switch found.place {
                case .open: continue
                case .answered:
                    table.forgetAnswered(found)
                    unchanged = false
                case .absent: break
                }
                if table.openCount < cap { table.open(Self.request(id, action, record: step), at: found, unchanged: unchanged) }
            } else {
                // A response.
                let found = table.lookup(id)
                let expected = model.response(id)
                switch found.place {
                case .open(let slot):
                    let r = table.slots[slot]!
                    #expect(r.id == id && r.action == expected, "step \(step): response \(id.debugDescription)")
                    table.answer(slot: slot, at: found, id: id, action: r.action, kind: r.kind)
                default:
                    #expect(expected == nil, "step \(step): \(id.debugDescription) should be open")
                }
            }
            #expect(table.openCount == model.open.count, "step \(step)")
            #expect(table.recent.count == model.answered.actions.count, "step \(step)")
            if step % 89 == 0 {
                for other in ids {
                    var t = table
                    let found = t.lookup(other)
                    let want = model.open[other] != nil ? "open" : (model.answered.action(of: other) != nil ? "answered" : "absent")
                    #expect(Self.shape(found.place) == want, "step \(step): \(other.debugDescription)")
                    if case .answered = found.place {
                        #expect(t.answeredAction(found) == model.answered.action(of: other))
                    }
                }
                #expect(Set(table.openRequests.map(\.id)) == Set(model.open.keys))
            }
        }
    }

    /// The ring's quirk, spelled out: a slot's eviction forgets its id even when the id was
    /// forgotten and answered again since (in a newer slot); and with a ring of one, an id
    /// answered again is forgotten at once (its old slot is the one its answer frees).
    @Test func evictingAnOldSlotForgetsTheIdItHeld() {
        func requestAndAnswer(_ table: inout RequestIDs, _ id: String, _ action: String) {
            let asked = table.lookup(id)
            if case .answered = asked.place { table.forgetAnswered(asked) }
            table.open(Self.request(id, action, record: 0), at: table.lookup(id), unchanged: true)
            let found = table.lookup(id)
            guard case .open(let slot) = found.place else {
                Issue.record("\(id) is not open")
                return
            }
            table.answer(slot: slot, at: found, id: id, action: action, kind: ActionKind(action))
        }
        func answered(_ table: inout RequestIDs, _ id: String) -> String? { table.answeredAction(table.lookup(id)) }
        var two = RequestIDs(rememberIDs: 2)
        requestAndAnswer(&two, "a", "x")
        requestAndAnswer(&two, "a", "y")  // reused: forgotten, then answered again in the second slot
        #expect(answered(&two, "a") == "y")
        requestAndAnswer(&two, "b", "z")  // the first slot goes, and "a" with it
        #expect(two.lookup("a").place == .absent)
        #expect(answered(&two, "b") == "z")
        var one = RequestIDs(rememberIDs: 1)
        requestAndAnswer(&one, "a", "x")
        requestAndAnswer(&one, "a", "x")
        #expect(one.lookup("a").place == .absent && one.recent.count == 0)
    }

    /// An id answered, then requested again while the ring is full and its old slot is
    /// the oldest: answering it forgets it at once (the ring's quirk, as before).
    @Test func anIdWhoseOldSlotIsTheOldestIsForgottenAtOnce() {
        var table = RequestIDs(rememberIDs: 2)
        func request(_ id: String) {
            let found = table.lookup(id)
            if case .answered = found.place { table.forgetAnswered(found) }
            table.open(Self.request(id, "a", record: 0), at: table.lookup(id), unchanged: true)
        }
        func respond(_ id: String) {
            let found = table.lookup(id)
            guard case .open(let slot) = found.place else {
                Issue.record("\(id) is not open")
                return
            }
            table.answer(slot: slot, at: found, id: id, action: "a", kind: .other)
        }
        request("x"); respond("x")
        request("y"); respond("y")
        request("x")  // reused: forgotten from the answered ids, open again
        respond("x")  // the ring is full and its oldest slot is x's: x is forgotten at once
        #expect(table.lookup("x").place == .absent)
        if case .answered = table.lookup("y").place {} else { Issue.record("y should be answered") }
        #expect(table.openCount == 0 && table.recent.count == 1)
    }

    /// A canonical lowercase UUID made of `i`.
    static func uuid(_ i: Int) -> String {
        let a = String(i, radix: 16), b = String(i &* 7919, radix: 16)
        return String(repeating: "0", count: 8 - a.count) + a + "-0000-4000-a000-" + String(repeating: "0", count: 12 - b.count) + b
    }

    /// Requests opened and answered one by one, with UUID ids: `count` of them.
    static func answerUUIDs(_ table: inout RequestIDs, count: Int, onAnswer: (RequestIDs) -> Void = { _ in }) {
        for i in 0..<count {
            let id = Self.uuid(i)
            let found = table.lookup(id)
            table.open(Self.request(id, "nfc.read", record: i), at: found, unchanged: true)
            let answered = table.lookup(id)
            guard case .open(let slot) = answered.place else {
                Issue.record("\(id) is not open")
                return
            }
            table.answer(slot: slot, at: answered, id: id, action: "nfc.read", kind: .nfcRead)
            onAnswer(table)
        }
    }

    /// While the ring fills, the answered ids' arena doubles: growing it by an eighth
    /// each time copied every byte about eight times, into new pages each time.
    @Test func theArenaDoublesWhileTheRingFills() {
        var table = RequestIDs(rememberIDs: 100_000)
        var capacities: Set<Int> = []
        Self.answerUUIDs(&table, count: 20_000) { capacities.insert($0.recent.arena.capacity) }
        #expect(capacities.count <= 14, "\(capacities.count) sizes")
        #expect(table.answeredAction(table.lookup(Self.uuid(7))) == "nfc.read")
    }

    /// Once the ring is full, the arena stays near its live bytes (21 per UUID record):
    /// doubling stops at about a full ring.
    @Test func aFullRingsArenaStaysNearItsRecords() {
        var table = RequestIDs(rememberIDs: 1_000)
        var largest = 0
        Self.answerUUIDs(&table, count: 10_000) { largest = Swift.max(largest, $0.recent.arena.capacity) }
        #expect(table.recent.count == 1_000)
        #expect(largest <= 1_000 * 21 * 2, "\(largest) bytes")
    }

    /// A short key holds exactly the key's bytes (a UUID's 17 through three loads, the
    /// others copied), and none past ``RequestIDs/ShortKey/capacity``.
    @Test func shortKeysHoldTheirBytes() {
        var rng = SplitMix64(seed: 17)
        for n in 0...(RequestIDs.ShortKey.capacity + 2) {
            for _ in 0..<20 {
                let key = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                let held = key.withUnsafeBytes { RequestIDs.ShortKey($0) }
                let back = held.with { Array($0) }
                #expect(back == (n == 0 || n > RequestIDs.ShortKey.capacity ? nil : key), "\(n) bytes")
            }
        }
        let uuid = RecentIDs.Key.with(Self.uuid(12_345)) { key in RequestIDs.ShortKey(key).with { Array($0) } == Array(key) }
        #expect(uuid)
    }

    /// An open request and a remembered success are moved several times per request and
    /// answer (into a slot, out of it, into the answered memory): at most 128 bytes, a
    /// compiler copies them with inline moves; at 137 each move was a `memcpy` call,
    /// about ten per request and answer (docs/PERFORMANCE.md, session 18).
    @Test func openRequestsAndSuccessesAreCopiedInline() {
        #expect(MemoryLayout<OpenRequest?>.size <= 128, "\(MemoryLayout<OpenRequest?>.size) bytes")
        #expect(MemoryLayout<SuccessInfo?>.size <= 128, "\(MemoryLayout<SuccessInfo?>.size) bytes")
        #expect(MemoryLayout<RequestData>.size <= 9, "\(MemoryLayout<RequestData>.size) bytes")
    }
}
