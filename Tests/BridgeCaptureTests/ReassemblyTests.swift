import BridgeCapture
import BridgePcap
import BridgeProxy
import Testing

/// One direction's TCP reassembly: order, retransmission, overlap, loss, FIN/RST.
struct ReassemblyTests {
    /// Feeds (sequence, bytes, flags) and collects the chunks.
    struct Harness {
        var r: TCPReassembler
        var out: [StreamChunk] = []
        init(limits: ReassemblyLimits = .default) { r = TCPReassembler(limits: limits) }

        mutating func feed(_ seq: UInt32, _ text: String, _ flags: TCPFlags = [.ack], missing: Int = 0) {
            let bytes = Array(text.utf8)
            bytes.withUnsafeBytes { r.receive(sequence: seq, flags: flags, payload: $0, missing: missing, into: &out) }
        }

        mutating func ack(_ n: UInt32) { r.acknowledge(n, into: &out) }
        mutating func flush() { r.flush(into: &out) }

        /// Data as text, gaps as `<n>`, FIN as `|`, RST as `!`.
        var rendered: String {
            out.map {
                switch $0 {
                case .data(let b): return String(decoding: b, as: UTF8.self)
                case .gap(let n): return "<\(n)>"
                case .fin: return "|"
                case .reset: return "!"
                }
            }.joined()
        }
    }

    @Test func inOrderAfterSYN() {
        var h = Harness()
        h.feed(99, "", [.syn])
        h.feed(100, "abc")
        h.feed(103, "def", [.ack, .fin])
        #expect(h.rendered == "abcdef|")
        #expect(h.r.isFinished)
    }

    @Test func outOfOrderIsHeldUntilTheHoleFills() {
        var h = Harness()
        h.feed(99, "", [.syn])
        h.feed(106, "ghi")
        h.feed(103, "def")
        #expect(h.rendered == "")
        #expect(h.r.bufferedBytes == 6)
        h.feed(100, "abc")
        #expect(h.rendered == "abcdefghi")
        #expect(h.r.bufferedBytes == 0)
        #expect(h.r.counters.outOfOrderSegments == 2)
    }

    @Test func retransmissionsAndOverlapsDeliverEachByteOnce() {
        var h = Harness()
        h.feed(99, "", [.syn])
        h.feed(100, "abcd")
        h.feed(100, "abcd")      // full retransmission
        h.feed(102, "cdef")      // overlaps two delivered bytes
        h.feed(108, "ijk")       // ahead
        h.feed(107, "hij")       // overlaps the held segment
        h.feed(105, "fgh")       // fills the hole, overlapping both sides
        #expect(h.rendered == "abcdefghijk")
        #expect(h.r.counters.duplicateBytes == 4 + 2 + 1 + 1 + 2)
    }

    @Test func acknowledgedButUnseenBytesBecomeAGapThenDeliveryResumes() {
        var h = Harness()
        h.feed(99, "", [.syn])
        h.feed(100, "abc")
        h.feed(110, "klm")      // 103..<110 never captured
        h.ack(113)              // the peer got everything: the hole is a loss...
        h.ack(113)
        #expect(h.rendered == "abc")
        h.ack(113)              // ...once three acknowledgments said so
        #expect(h.rendered == "abc<7>klm")
        h.feed(113, "nop")
        #expect(h.rendered == "abc<7>klmnop")
        #expect(h.r.counters.gapBytes == 7)
    }

    @Test func aLossAtTheTailIsReportedWhenAcknowledged() {
        var h = Harness()
        h.feed(99, "", [.syn])
        h.feed(100, "abc")
        h.ack(108)
        h.flush()               // at the end, what was acknowledged but unseen is a gap
        #expect(h.rendered == "abc<5>")
        h.feed(103, "defgh")   // the lost bytes arriving late count as duplicates
        #expect(h.rendered == "abc<5>")
    }

    @Test func anAcknowledgmentJustAheadOfItsDataIsNotALoss() {
        var h = Harness()
        h.feed(99, "", [.syn])
        for i in 0..<10 {
            let seq = UInt32(100 + i * 3)
            h.ack(seq + 3)      // reordered capture: the ACK comes first
            h.feed(seq, "abc")
        }
        #expect(h.r.counters.gapBytes == 0)
        #expect(h.rendered == String(repeating: "abc", count: 10))
    }

    @Test func bufferLimitDeclaresTheHoleLost() {
        var h = Harness(limits: ReassemblyLimits(maxBufferedBytes: 8))
        h.feed(99, "", [.syn])
        h.feed(110, "abcde")
        #expect(h.rendered == "")
        h.feed(115, "fghij")   // 10 bytes held > 8: give up on 100..<110
        #expect(h.rendered == "<10>abcdefghij")
    }

    @Test func segmentLimitDeclaresTheHoleLost() {
        var h = Harness(limits: ReassemblyLimits(maxBufferedSegments: 2))
        h.feed(99, "", [.syn])
        h.feed(102, "c")
        h.feed(104, "e")
        h.feed(106, "g")
        #expect(h.rendered == "<2>c")
        #expect(h.r.bufferedBytes == 2)
    }

    @Test func flushDeliversHeldDataWithGapsAndTheFIN() {
        var h = Harness()
        h.feed(99, "", [.syn])
        h.feed(100, "ab")
        h.feed(105, "fg")
        h.feed(110, "", [.ack, .fin])
        h.flush()
        #expect(h.rendered == "ab<3>fg<3>|")
    }

    @Test func finWaitsForTheDataBeforeIt() {
        var h = Harness()
        h.feed(99, "", [.syn])
        h.feed(103, "def", [.ack, .fin])
        #expect(h.rendered == "")
        h.feed(100, "abc")
        #expect(h.rendered == "abcdef|")
    }

    @Test func resetFlushesAndEnds() {
        var h = Harness()
        h.feed(99, "", [.syn])
        h.feed(100, "ab")
        h.feed(104, "ef")
        h.feed(106, "", [.rst])
        #expect(h.rendered == "ab<2>ef!")
        h.feed(106, "late")
        #expect(h.rendered == "ab<2>ef!")
    }

    @Test func midConnectionStartAnchorsOnTheFirstData() {
        var h = Harness()
        h.feed(5000, "")        // a pure ACK anchors nothing
        h.ack(1)
        h.feed(7000, "xyz")
        h.feed(7003, "w")
        #expect(h.rendered == "xyzw")
        #expect(!h.r.sawSYN)
    }

    @Test func sequenceNumbersWrapAround() {
        var h = Harness()
        h.feed(UInt32.max - 2, "", [.syn])
        h.feed(UInt32.max &- 1, "ab")
        h.feed(2, "ef")        // ahead, past the wrap
        h.feed(0, "cd")
        #expect(h.rendered == "abcdef")
    }

    @Test func snapshotLengthCutsBecomeGaps() {
        var h = Harness()
        h.feed(99, "", [.syn])
        h.feed(100, "abc", missing: 5)
        h.feed(108, "ijk")
        #expect(h.rendered == "abc<5>ijk")
    }

    @Test func farOutOfWindowSegmentsAreIgnoredUntilTheyPersist() {
        var h = Harness(limits: ReassemblyLimits(maxSequenceJump: 1000, reanchorAfter: 3))
        h.feed(99, "", [.syn])
        h.feed(100, "a")
        h.feed(100_000, "junk")
        #expect(h.rendered == "a")
        #expect(h.r.counters.outOfWindowSegments == 1)
        h.feed(101, "b")
        h.feed(200_000, "x")
        h.feed(200_001, "y")
        h.feed(200_002, "z")   // third in a row: the stream really jumped
        #expect(h.rendered == "ab<199900>z")
    }
}
