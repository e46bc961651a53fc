import Logging

/// Turns captured packets into WebSocket messages and capture events: link, IP and TCP
/// decoding (``PacketDecoder``), reassembly per direction (``TCPReassembler``), HTTP
/// upgrade detection, WebSocket frames, messages and permessage-deflate.
///
/// Feed packets in capture order with ``receive(time:linkType:packet:into:)``, then call
/// ``finish(time:into:)``. Outputs come out in order; connection ids are
/// `client-server` (`127.0.0.1:50412-127.0.0.1:8787`), the client being the web side.
/// Only WebSocket connections produce outputs; other TCP traffic is followed just far
/// enough to tell. Malformed packets are counted (``statistics``) and summarised in one
/// error event at the end, never fatal. Memory is bounded by ``CaptureLimits``.
///
/// A class, not `Sendable`: it owns zlib streams; use it from one thread.
public final class CaptureDecoder {
    /// The limits in force.
    public let limits: CaptureLimits
    /// Counters so far.
    public private(set) var statistics = CaptureStatistics()
    private var connections: [FlowKey: CaptureConnection] = [:]
    private var packetCounter: UInt64 = 0
    private var firstProblem: (packet: Int, problem: PacketProblem)?
    private var scratchChunks: [StreamChunk] = []
    private var scratchEvents: [WebSocketStreamEvent] = []
    private let logger: Logger

    /// Creates a decoder.
    public init(limits: CaptureLimits = .default, logger: Logger = Logger(label: "bridgescope.capture")) {
        self.limits = limits
        self.logger = logger
    }

    /// Connections currently followed (WebSocket or not yet known not to be).
    public var connectionCount: Int { connections.count }

    /// Decodes one packet captured at `time` (ns since the epoch), appending outputs.
    public func receive(time: Int64, linkType: LinkType, packet: UnsafeRawBufferPointer, into out: inout [CaptureOutput]) {
        packetCounter += 1
        statistics.packets += 1
        statistics.packetBytes += packet.count
        switch PacketDecoder.decode(linkType, packet) {
        case .skipped(let why):
            statistics.skipped[why, default: 0] += 1
        case .malformed(let problem):
            statistics.malformed += 1
            if firstProblem == nil { firstProblem = (statistics.packets, problem) }
            logger.debug("malformed packet", metadata: ["packet": "\(statistics.packets)", "problem": "\(problem)"])
        case .tcp(let segment):
            statistics.tcpSegments += 1
            let payload = UnsafeRawBufferPointer(rebasing: packet[segment.payloadOffset..<(segment.payloadOffset + segment.payloadCount)])
            segmentReceived(segment, payload: payload, time: time, into: &out)
        }
    }

    /// Decodes one packet held in an array (tests, small tools).
    public func receive(time: Int64, linkType: LinkType, packet: [UInt8]) -> [CaptureOutput] {
        var out: [CaptureOutput] = []
        packet.withUnsafeBytes { receive(time: time, linkType: linkType, packet: $0, into: &out) }
        return out
    }

    /// Records packets the capture layer dropped.
    public func dropped(_ count: Int, time: Int64, into out: inout [CaptureOutput]) {
        guard count > 0 else { return }
        statistics.drops += count
        out.append(.drop(time: time, count: count))
    }

    /// Ends the capture: flushes held data (with gaps), closes every open connection
    /// (reason "end of capture") and reports malformed packets in one error event.
    public func finish(time: Int64, into out: inout [CaptureOutput]) {
        var ctx = DecodeContext(out: [], statistics: statistics, time: time, limits: limits)
        let keys = connections.sorted { $0.value.lastActive < $1.value.lastActive }.map(\.key)
        for key in keys {
            guard var conn = connections.removeValue(forKey: key) else { continue }
            flush(&conn, &ctx)
            conn.close(reason: "end of capture", &ctx)
        }
        statistics = ctx.statistics
        out.append(contentsOf: ctx.out)
        if statistics.malformed > 0, let first = firstProblem {
            report("\(statistics.malformed) malformed packet(s) skipped; the first, packet \(first.packet): \(first.problem)", time, &out)
        }
        if let n = statistics.skipped[.nonFirstFragment], n > 0 {
            report("\(n) non-first IP fragment(s) skipped (not reassembled; their bytes count as gaps)", time, &out)
        }
    }

    /// Finishes and returns the outputs (tests, small tools).
    public func finish(time: Int64) -> [CaptureOutput] {
        var out: [CaptureOutput] = []
        finish(time: time, into: &out)
        return out
    }

    private func report(_ text: String, _ time: Int64, _ out: inout [CaptureOutput]) {
        statistics.errors += 1
        out.append(.error(time: time, connection: nil, text: text))
    }

    private func segmentReceived(_ seg: TCPSegment, payload: UnsafeRawBufferPointer, time: Int64, into out: inout [CaptureOutput]) {
        let key = FlowKey(source: seg.source, destination: seg.destination)
        let d = key.index(from: seg.source)
        var ctx = DecodeContext(out: [], statistics: CaptureStatistics(), time: time, limits: limits)
        // Outputs go straight to the caller's array; counters and scratch arrays are
        // moved in and out, not copied.
        swap(&ctx.out, &out)
        swap(&ctx.statistics, &statistics)
        swap(&ctx.chunks, &scratchChunks)
        swap(&ctx.events, &scratchEvents)
        defer {
            swap(&ctx.out, &out)
            swap(&ctx.statistics, &statistics)
            swap(&ctx.chunks, &scratchChunks)
            swap(&ctx.events, &scratchEvents)
        }
        // The connection is changed in place in the table (no copy of it per packet).
        var index = connections.index(forKey: key)
        if let i = index, seg.flags.contains(.syn) && !seg.flags.contains(.ack) {
            // A fresh SYN on a finished 4-tuple starts a new connection (port reuse).
            let r = connections.values[i].reassemblers[d]
            if connections.values[i].isClosed || r.isFinished || (r.sawSYN && r.nextSequence != seg.sequence &+ 1) {
                var conn = connections.remove(at: i).value
                flush(&conn, &ctx)
                conn.close(reason: "port reused by a new connection", &ctx)
                connections[key] = CaptureConnection(key: key, limits: limits)
                index = connections.index(forKey: key)
            }
        }
        if index == nil {
            if connections.count >= limits.maxConnections { evict(&ctx) }
            connections[key] = CaptureConnection(key: key, limits: limits)
            index = connections.index(forKey: key)
        }
        let i = index!
        if Self.segment(seg, payload: payload, direction: d, packet: packetCounter, to: &connections.values[i], &ctx) {
            var conn = connections.remove(at: i).value
            conn.close(reason: conn.reset ? "reset" : "FIN both ways", &ctx)
        }
    }

    /// One segment of connection `conn`, direction `d`; returns whether the connection
    /// is now closed.
    private static func segment(_ seg: TCPSegment, payload: UnsafeRawBufferPointer, direction d: Int, packet: UInt64,
                                to conn: inout CaptureConnection, _ ctx: inout DecodeContext) -> Bool {
        conn.lastActive = packet
        if seg.flags.contains(.syn) { conn.sawSYN = true }
        if conn.phase == .ignored {
            // Not WebSocket: only watch for the end, to free the slot.
            if seg.flags.contains(.rst) { conn.reset = true }
            if seg.flags.contains(.fin) { conn.finished[d] = true }
            return conn.isClosed
        }
        if conn.reassemblers[d].receiveInOrder(sequence: seg.sequence, flags: seg.flags, payloadCount: payload.count,
                                               missing: seg.missingPayload) {
            conn.stream(payload, direction: d, &ctx)
        } else {
            var chunks: [StreamChunk] = []
            swap(&chunks, &ctx.chunks)
            chunks.removeAll(keepingCapacity: true)
            conn.reassemblers[d].receive(sequence: seg.sequence, flags: seg.flags, payload: payload,
                                         missing: seg.missingPayload, into: &chunks)
            conn.consume(chunks, direction: d, &ctx)
            swap(&chunks, &ctx.chunks)
        }
        if seg.flags.contains(.ack) && !conn.reset {
            var chunks: [StreamChunk] = []
            swap(&chunks, &ctx.chunks)
            chunks.removeAll(keepingCapacity: true)
            conn.reassemblers[1 - d].acknowledge(seg.acknowledgment, into: &chunks)
            if !chunks.isEmpty { conn.consume(chunks, direction: 1 - d, &ctx) }
            swap(&chunks, &ctx.chunks)
        }
        return conn.isClosed
    }

    private func flush(_ conn: inout CaptureConnection, _ ctx: inout DecodeContext) {
        guard conn.phase != .ignored else { return }
        for d in 0..<2 {
            var chunks: [StreamChunk] = []
            conn.reassemblers[d].flush(into: &chunks)
            conn.consume(chunks, direction: d, &ctx)
        }
    }

    /// Evicts the least recently active eighth of the table.
    private func evict(_ ctx: inout DecodeContext) {
        let count = max(1, connections.count / 8)
        let victims = connections.sorted { $0.value.lastActive < $1.value.lastActive }.prefix(count).map(\.key)
        for key in victims {
            guard var conn = connections.removeValue(forKey: key) else { continue }
            flush(&conn, &ctx)
            conn.close(reason: "evicted: more than \(limits.maxConnections) connections followed at once", &ctx)
            ctx.statistics.evictions += 1
        }
        logger.debug("flow table full", metadata: ["evicted": "\(count)"])
    }
}
