/// Limits that bound what one direction of one TCP connection may cost.
public struct ReassemblyLimits: Sendable, Hashable {
    /// Most out-of-order payload bytes held while waiting for a hole to fill. Default
    /// 4 MiB (a few full receive windows on loopback). Past it, the hole is declared
    /// lost: a gap, then the held data.
    public var maxBufferedBytes: Int
    /// Most out-of-order segments held. Default 4,096.
    public var maxBufferedSegments: Int
    /// Segments starting more than this many bytes past the next expected byte are
    /// ignored as out of window. Default 64 MiB.
    public var maxSequenceJump: Int
    /// After this many out-of-window segments in a row the stream re-anchors on the
    /// latest one (reporting the skipped distance as a gap). Default 32.
    public var reanchorAfter: Int
    /// Acknowledgments from the peer covering bytes never seen that make those bytes a
    /// gap. Default 3: one is not enough, because a capture can hold an ACK just before
    /// the data it acknowledges (reordering between capture points or CPUs).
    var ackStrikes: Int

    /// Creates limits; every argument defaults to the documented default.
    public init(maxBufferedBytes: Int = 4 << 20, maxBufferedSegments: Int = 4096,
                maxSequenceJump: Int = 64 << 20, reanchorAfter: Int = 32, ackStrikes: Int = 3) {
        self.maxBufferedBytes = maxBufferedBytes
        self.maxBufferedSegments = maxBufferedSegments
        self.maxSequenceJump = maxSequenceJump
        self.reanchorAfter = reanchorAfter
        self.ackStrikes = ackStrikes
    }

    /// The documented defaults.
    public static let `default` = ReassemblyLimits()
}

/// What a ``TCPReassembler`` hands on, in stream order.
public enum StreamChunk: Sendable, Hashable {
    /// The next bytes of the stream.
    case data([UInt8])
    /// This many bytes of the stream were never captured (or were given up on).
    case gap(Int)
    /// The sender finished (FIN reached, all data before it delivered or gapped).
    case fin
    /// The sender reset the connection.
    case reset
}

/// Counters of one direction's reassembly.
public struct ReassemblyCounters: Sendable, Hashable {
    /// Payload bytes handed on in order.
    public var deliveredBytes = 0
    /// Bytes reported as gaps.
    public var gapBytes = 0
    /// Segments that arrived ahead of a hole.
    public var outOfOrderSegments = 0
    /// Payload bytes seen again after delivery (retransmissions, overlaps).
    public var duplicateBytes = 0
    /// Segments ignored as out of window.
    public var outOfWindowSegments = 0
}
