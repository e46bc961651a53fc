/// Reassembles one direction of a TCP connection: a value-type state machine fed
/// segments, appending ``StreamChunk``s to an output array.
///
/// - Order: segments ahead of the next expected byte are held (sorted) until the hole
///   fills; retransmitted bytes already delivered are dropped.
/// - Overlaps: the first copy of a byte wins; later copies are counted, not compared.
/// - Missing data becomes a ``StreamChunk/gap(_:)`` when the peer acknowledges bytes
///   never seen (see ``acknowledge(_:into:)``), when the held data exceeds
///   ``ReassemblyLimits``, at FIN or RST, and at ``flush(into:)``; delivery resumes
///   right after.
/// - Mid-connection start: without a SYN the first segment carrying data anchors the
///   stream.
public struct TCPReassembler: Sendable {
    private struct Held: Sendable {
        var sequence: UInt32
        var bytes: [UInt8]
        var missing: Int
        var length: Int { bytes.count + missing }
    }

    /// The limits in force.
    public let limits: ReassemblyLimits
    /// Counters so far.
    public private(set) var counters = ReassemblyCounters()
    /// The next expected sequence number, nil until the stream is anchored.
    public private(set) var nextSequence: UInt32?
    /// Whether the SYN of this direction was seen.
    public private(set) var sawSYN = false
    /// Whether FIN or RST ended this direction.
    public private(set) var isFinished = false
    private var finSequence: UInt32?
    private var held: [Held] = []
    private var heldBytes = 0
    private var outOfWindowRun = 0
    private var acked: UInt32?
    private var strikes = 0

    /// Creates a reassembler for one direction.
    public init(limits: ReassemblyLimits = .default) {
        self.limits = limits
    }

    /// Bytes currently held out of order.
    public var bufferedBytes: Int { heldBytes }

    /// Feeds one segment of this direction; `payload` is its captured payload and
    /// `missing` the bytes the IP length announced beyond it.
    public mutating func receive(sequence: UInt32, flags: TCPFlags, payload: UnsafeRawBufferPointer,
                                 missing: Int = 0, into out: inout [StreamChunk]) {
        if isFinished { return }
        var dataSequence = sequence
        if flags.contains(.syn) {
            dataSequence = sequence &+ 1
            if !sawSYN {
                sawSYN = true
                if nextSequence == nil { nextSequence = dataSequence }
            }
        }
        let length = payload.count + missing
        if nextSequence == nil {
            guard length > 0 || flags.contains(.fin) else { return }
            nextSequence = dataSequence
        }
        if flags.contains(.fin) && finSequence == nil {
            finSequence = dataSequence &+ UInt32(truncatingIfNeeded: length)
        }
        if length > 0 {
            insert(Held(sequence: dataSequence, bytes: [], missing: missing), payload: payload, into: &out)
            if let a = acked, offset(a) <= 0 {
                acked = nil  // the acknowledged bytes arrived after all
                strikes = 0
            }
        }
        if flags.contains(.rst) {
            flush(into: &out)
            out.append(.reset)
            isFinished = true
            return
        }
        finishIfDue(into: &out)
    }

    /// The common case without a copy: a segment carrying exactly the next expected
    /// bytes, with nothing held, no SYN, FIN or RST and nothing missing. Then the stream
    /// advances past its `payloadCount` bytes (which the caller hands on itself) and it
    /// returns true, with the same effect as ``receive(sequence:flags:payload:missing:into:)``
    /// delivering one ``StreamChunk/data(_:)`` chunk of them. Otherwise it does nothing
    /// and returns false: call ``receive(sequence:flags:payload:missing:into:)``.
    public mutating func receiveInOrder(sequence: UInt32, flags: TCPFlags, payloadCount: Int, missing: Int) -> Bool {
        guard payloadCount > 0, missing == 0, !isFinished, held.isEmpty, finSequence == nil,
              flags.isDisjoint(with: [.syn, .fin, .rst]), let next = nextSequence, next == sequence else { return false }
        nextSequence = next &+ UInt32(truncatingIfNeeded: payloadCount)
        counters.deliveredBytes += payloadCount
        outOfWindowRun = 0
        if let a = acked, offset(a) <= 0 {
            acked = nil  // the acknowledged bytes arrived after all
            strikes = 0
        }
        return true
    }

    /// Tells this direction that the peer acknowledged everything before `ack`. Bytes
    /// acknowledged but never captured become a gap once ``ReassemblyLimits/ackStrikes``
    /// acknowledgments in a row have covered them (and at ``flush(into:)``).
    public mutating func acknowledge(_ ack: UInt32, into out: inout [StreamChunk]) {
        guard !isFinished, nextSequence != nil else { return }
        let rel = offset(ack)
        guard rel > 0, rel <= limits.maxSequenceJump else {
            if rel <= 0 { strikes = 0; acked = nil }
            return
        }
        if let a = acked, offset(a) >= rel {} else { acked = ack }
        strikes += 1
        if strikes >= limits.ackStrikes { gapToAcknowledged(into: &out) }
    }

    /// Declares everything up to the acknowledged point that is still missing a gap.
    private mutating func gapToAcknowledged(into out: inout [StreamChunk]) {
        defer { strikes = 0; acked = nil }
        guard let ack = acked else { return }
        func target() -> Int {
            var t = offset(ack)
            if let fin = finSequence { t = min(t, offset(fin)) }
            return t
        }
        while target() > 0 {
            if let first = held.first, offset(first.sequence) <= 0 {
                drain(into: &out)
                continue
            }
            let t = target()
            emitGap(min(t, held.first.map { offset($0.sequence) } ?? t), into: &out)
            drain(into: &out)
        }
        finishIfDue(into: &out)
    }

    /// Hands on everything held, with gaps for the holes, and FIN if it was seen (end of
    /// capture, eviction).
    public mutating func flush(into out: inout [StreamChunk]) {
        guard nextSequence != nil, !isFinished else { return }
        gapToAcknowledged(into: &out)
        while let first = held.first {
            let rel = offset(first.sequence)
            if rel > 0 { emitGap(rel, into: &out) }
            drain(into: &out)
        }
        if let fin = finSequence, !isFinished {
            let rel = offset(fin)
            if rel > 0 && rel <= limits.maxSequenceJump { emitGap(rel, into: &out) }
            finishIfDue(into: &out)
        }
    }

    // MARK: - Internals

    private func offset(_ s: UInt32) -> Int {
        Int(Int32(bitPattern: s &- (nextSequence ?? s)))
    }

    private mutating func insert(_ segment: Held, payload: UnsafeRawBufferPointer, into out: inout [StreamChunk]) {
        var rel = offset(segment.sequence)
        let length = payload.count + segment.missing
        if rel + length <= 0 {
            counters.duplicateBytes += length
            return
        }
        if rel > limits.maxSequenceJump {
            counters.outOfWindowSegments += 1
            outOfWindowRun += 1
            guard outOfWindowRun >= limits.reanchorAfter else { return }
            emitGap(rel, into: &out)  // re-anchor: the stream jumped for real
            rel = 0
        }
        outOfWindowRun = 0
        if rel <= 0 {
            // In order (possibly overlapping what was delivered): hand on the new part.
            let skip = -rel
            counters.duplicateBytes += skip
            if skip < payload.count {
                let fresh = UnsafeRawBufferPointer(rebasing: payload[skip...])
                out.append(.data(Array(fresh)))
                counters.deliveredBytes += fresh.count
                nextSequence = nextSequence! &+ UInt32(fresh.count)
            }
            let missing = min(segment.missing, length - skip)
            if missing > 0 { emitGap(missing, into: &out) }
            drain(into: &out)
            return
        }
        counters.outOfOrderSegments += 1
        var h = segment
        h.bytes = Array(payload)
        var index = held.count
        while index > 0 && offset(held[index - 1].sequence) > rel { index -= 1 }
        held.insert(h, at: index)
        heldBytes += h.bytes.count
        while heldBytes > limits.maxBufferedBytes || held.count > limits.maxBufferedSegments {
            let first = offset(held[0].sequence)
            if first > 0 { emitGap(first, into: &out) }
            drain(into: &out)
        }
    }

    /// Hands on held segments that now start at or before the next expected byte.
    private mutating func drain(into out: inout [StreamChunk]) {
        while let first = held.first {
            let rel = offset(first.sequence)
            if rel > 0 { return }
            held.removeFirst()
            heldBytes -= first.bytes.count
            let skip = -rel
            if skip >= first.length {
                counters.duplicateBytes += first.length
                continue
            }
            counters.duplicateBytes += skip
            if skip < first.bytes.count {
                let fresh = first.bytes[skip...]
                out.append(.data(skip == 0 ? first.bytes : Array(fresh)))
                counters.deliveredBytes += fresh.count
                nextSequence = nextSequence! &+ UInt32(fresh.count)
            }
            let missing = min(first.missing, first.length - skip)
            if missing > 0 { emitGap(missing, into: &out) }
        }
    }

    private mutating func emitGap(_ n: Int, into out: inout [StreamChunk]) {
        guard n > 0 else { return }
        out.append(.gap(n))
        counters.gapBytes += n
        nextSequence = nextSequence! &+ UInt32(truncatingIfNeeded: n)
    }

    private mutating func finishIfDue(into out: inout [StreamChunk]) {
        guard let fin = finSequence, !isFinished, offset(fin) <= 0 else { return }
        held.removeAll()
        heldBytes = 0
        out.append(.fin)
        isFinished = true
    }
}
