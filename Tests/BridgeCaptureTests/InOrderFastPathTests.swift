import BridgeCapture
import BridgePcap
import BridgeProxy
import Testing

/// `TCPReassembler.receiveInOrder` (the decoder's no-copy path) against `receive`:
/// fed the same random segments, a reassembler that tries the fast path first and
/// hands on the payload itself must produce the same chunks and state after every step.
struct InOrderFastPathTests {
    struct Segment {
        var sequence: UInt32
        var flags: TCPFlags
        var payload: [UInt8]
        var missing: Int
        var ack: UInt32?
    }

    /// A stream starting at `isn` cut into segments, then shuffled a little: some
    /// reordered, some repeated or overlapping, some cut short, some with FIN or RST.
    static func segments(seed: UInt64) -> [Segment] {
        var rng = SplitMix(state: seed)
        let isn = UInt32(truncatingIfNeeded: rng.next())
        var out: [Segment] = []
        if rng.next() % 2 == 0 { out.append(Segment(sequence: isn, flags: [.syn], payload: [], missing: 0, ack: nil)) }
        var seq = isn &+ 1
        for _ in 0..<Int(rng.next() % 40 + 5) {
            let n = Int(rng.next() % 20)
            let missing = rng.next() % 10 == 0 ? Int(rng.next() % 4) : 0
            let payload = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            out.append(Segment(sequence: seq, flags: [.ack], payload: payload, missing: missing,
                               ack: rng.next() % 3 == 0 ? seq &+ UInt32(n + missing) &+ UInt32(rng.next() % 3) : nil))
            seq = seq &+ UInt32(n + missing)
        }
        for _ in 0..<Int(rng.next() % 6) {  // reorder, repeat, overlap
            let i = Int(rng.next() % UInt64(out.count)), j = Int(rng.next() % UInt64(out.count))
            switch rng.next() % 3 {
            case 0: out.swapAt(i, j)
            case 1: out.insert(out[i], at: j)
            default:
                var s = out[i]
                let cut = min(s.payload.count, Int(rng.next() % 5))
                s.sequence = s.sequence &+ UInt32(cut)
                s.payload.removeFirst(cut)
                out.insert(s, at: j)
            }
        }
        if rng.next() % 3 == 0 { out[out.count - 1].flags.insert(rng.next() % 4 == 0 ? .rst : .fin) }
        return out
    }

    @Test func agreesWithReceiveOnRandomStreams() {
        var taken = 0, slow = 0
        for seed in 1...600 {
            var plain = TCPReassembler(), fast = TCPReassembler()
            var a: [StreamChunk] = [], b: [StreamChunk] = []
            for (k, s) in Self.segments(seed: UInt64(seed)).enumerated() {
                s.payload.withUnsafeBytes { p in
                    plain.receive(sequence: s.sequence, flags: s.flags, payload: p, missing: s.missing, into: &a)
                    if fast.receiveInOrder(sequence: s.sequence, flags: s.flags, payloadCount: p.count, missing: s.missing) {
                        b.append(.data(Array(p)))
                        taken += 1
                    } else {
                        slow += 1
                        fast.receive(sequence: s.sequence, flags: s.flags, payload: p, missing: s.missing, into: &b)
                    }
                }
                if let ack = s.ack {
                    plain.acknowledge(ack, into: &a)
                    fast.acknowledge(ack, into: &b)
                }
                #expect(a == b, "seed \(seed), segment \(k)")
                #expect(plain.nextSequence == fast.nextSequence && plain.counters == fast.counters
                        && plain.isFinished == fast.isFinished && plain.bufferedBytes == fast.bufferedBytes, "seed \(seed), segment \(k)")
            }
            plain.flush(into: &a)
            fast.flush(into: &b)
            #expect(a == b, "seed \(seed), flush")
        }
        #expect(taken > 2_000 && slow > 2_000, "fast path \(taken), slow path \(slow)")
    }

    @Test func takesOnlyTheNextBytesWithNothingHeldAndNoControlFlags() {
        var r = TCPReassembler()
        var out: [StreamChunk] = []
        let took1 = r.receiveInOrder(sequence: 100, flags: [.ack], payloadCount: 3, missing: 0)
        #expect(!took1, "not anchored yet")
        [UInt8]("abc".utf8).withUnsafeBytes { r.receive(sequence: 100, flags: [.ack], payload: $0, into: &out) }
        let took2 = r.receiveInOrder(sequence: 103, flags: [.ack, .psh], payloadCount: 2, missing: 0)
        #expect(took2)
        #expect(r.nextSequence == 105 && r.counters.deliveredBytes == 5)
        let took3 = r.receiveInOrder(sequence: 106, flags: [.ack], payloadCount: 2, missing: 0)
        #expect(!took3, "ahead: must be held")
        let took4 = r.receiveInOrder(sequence: 105, flags: [.ack, .fin], payloadCount: 2, missing: 0)
        #expect(!took4, "FIN")
        let took5 = r.receiveInOrder(sequence: 105, flags: [.ack], payloadCount: 2, missing: 1)
        #expect(!took5, "cut short")
        let took6 = r.receiveInOrder(sequence: 105, flags: [.ack], payloadCount: 0, missing: 0)
        #expect(!took6, "no payload")
        [UInt8]("zz".utf8).withUnsafeBytes { r.receive(sequence: 108, flags: [.ack], payload: $0, into: &out) }
        let took7 = r.receiveInOrder(sequence: 105, flags: [.ack], payloadCount: 3, missing: 0)
        #expect(!took7, "something is held")
        #expect(r.nextSequence == 105)
    }

    struct SplitMix {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
