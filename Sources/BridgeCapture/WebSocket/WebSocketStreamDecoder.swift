import BridgeJSON
import BridgeWebSocket

/// What one direction's WebSocket decoding produced.
enum WebSocketStreamEvent: Equatable {
    /// A complete data message, inflated when it was compressed.
    case message([UInt8], text: Bool)
    /// A close frame.
    case closeFrame(code: CloseCode?, reason: String)
    /// Something could not be decoded; decoding goes on (after resynchronizing).
    case error(String)
    /// Frames were found (again) after `skipped` undecodable bytes; `masked` tells the
    /// role (masked frames come from the client).
    case synchronized(skipped: Int, masked: Bool)
    /// No frames were confirmed in the first ``CaptureLimits/maxProbationBytes`` bytes
    /// of a direction seen without a handshake: decoding of it stopped.
    case gaveUp(Int)
}

/// Decodes one direction of a WebSocket connection from its reassembled bytes: frames
/// (``WebSocketFrameParser``), messages (``MessageAssembler``) and permessage-deflate
/// (``PerMessageDeflate`` with this direction's context takeover).
///
/// Starts synchronized after a handshake. Without one it starts looking for frames
/// (``FrameResynchronizer``) and, because nothing says the connection is WebSocket at
/// all, holds its first finding on probation: the first data message must be a JSON
/// object or array (what the bridge sends) before anything is reported; otherwise the
/// start was false and the search goes on. After a gap or a framing error the decoder
/// resynchronizes without probation. After a gap or an inflate failure the inflater
/// starts afresh, so a message that refers to lost history fails loudly instead of
/// inflating to wrong bytes.
///
/// Not `Sendable`: it owns a zlib stream.
struct WebSocketStreamDecoder {
    /// Whether this direction's frames are masked (client to server), nil while unknown.
    private(set) var masked: Bool?
    /// Whether frames were confirmed at least once (handshake seen, or probation passed).
    private(set) var confirmed: Bool
    private let limits: CaptureLimits
    private let deflate: DeflateAgreement?
    /// Whether permessage-deflate may be in use (negotiated, or unknown without a handshake).
    private let mayDeflate: Bool
    private var parser: WebSocketFrameParser
    private var assembler: MessageAssembler
    private var inflater: PerMessageDeflate?
    private var synchronized: Bool
    private var resync: FrameResynchronizer
    /// Bytes passed over before the current tentative start (reported on confirmation).
    private var skipped = 0
    private var closed = false
    private var probationBytes = 0
    /// While on probation: every byte from the tentative start on, so a false start
    /// gives them back to the scan instead of losing the real frames it swallowed.
    private var probation: [UInt8]?

    /// A decoder for a direction whose handshake was seen.
    init(masked: Bool, deflate: DeflateAgreement?, limits: CaptureLimits) {
        self.masked = masked
        self.confirmed = true
        self.limits = limits
        self.deflate = deflate
        self.mayDeflate = deflate != nil
        self.parser = WebSocketFrameParser(maxFrameSize: limits.maxMessageBytes)
        self.assembler = MessageAssembler(maxMessageBytes: limits.maxMessageBytes, deflate: deflate != nil, requireMasking: masked)
        self.resync = FrameResynchronizer(maxFrameSize: limits.maxMessageBytes, maxBufferBytes: limits.maxResyncBytes)
        self.synchronized = true
    }

    /// A decoder for a direction seen without its handshake: role unknown, and
    /// permessage-deflate assumed possible (with context takeover).
    init(withoutHandshake limits: CaptureLimits) {
        self.masked = nil
        self.confirmed = false
        self.limits = limits
        self.deflate = nil
        self.mayDeflate = true
        self.parser = WebSocketFrameParser(maxFrameSize: limits.maxMessageBytes)
        self.assembler = MessageAssembler(maxMessageBytes: limits.maxMessageBytes, deflate: true, requireMasking: false)
        self.resync = FrameResynchronizer(maxFrameSize: limits.maxMessageBytes, maxBufferBytes: limits.maxResyncBytes)
        self.synchronized = false
    }

    /// Sets the role once the other direction revealed it.
    mutating func learnRole(masked m: Bool) {
        guard masked == nil else { return }
        masked = m
        if synchronized && !confirmed {
            let held = probation ?? parser.takeBufferedBytes()
            probation = nil
            loseSync(keeping: held, from: 0)
        }
    }

    /// Re-examines held bytes (after ``learnRole(masked:)``).
    mutating func poke(into out: inout [WebSocketStreamEvent]) {
        pump(into: &out)
    }

    /// Feeds stream bytes.
    mutating func receive(_ bytes: [UInt8], into out: inout [WebSocketStreamEvent]) {
        if closed { return }
        if !confirmed {
            probationBytes += bytes.count
            if probationBytes > limits.maxProbationBytes {
                closed = true
                parser.reset()
                resync.reset()
                out.append(.gaveUp(probationBytes))
                return
            }
        }
        if synchronized {
            parser.append(contentsOf: bytes)
            if probation != nil {
                probation!.append(contentsOf: bytes)
                // A tentative start waiting for a huge frame is not worth waiting for.
                if parser.bufferedByteCount > FrameResynchronizer.maxWaitFrameSize || probation!.count > limits.maxResyncBytes {
                    falseStart(into: &out)
                }
            }
        } else {
            resync.append(bytes)
        }
        pump(into: &out)
    }

    /// Feeds stream bytes that are only valid during the call (a packet's payload):
    /// copied once, into the frame parser, on the common path.
    mutating func receive(_ bytes: UnsafeRawBufferPointer, into out: inout [WebSocketStreamEvent]) {
        guard confirmed, synchronized, probation == nil, !closed else { return receive(Array(bytes), into: &out) }
        parser.append(bytes)
        pump(into: &out)
    }

    /// Decodes frames while possible, resynchronizing whenever sync is lost. Each turn
    /// consumes at least one frame or one byte, so the loop ends.
    private mutating func pump(into out: inout [WebSocketStreamEvent]) {
        while !closed {
            if synchronized {
                drainFrames(into: &out)
                if synchronized { return }
            } else if !resynchronize(into: &out) {
                return
            }
        }
    }

    /// Notes that `count` bytes of the stream were lost: the frame in progress is
    /// abandoned and the decoder resynchronizes.
    mutating func gap(_ count: Int, into out: inout [WebSocketStreamEvent]) {
        if closed { return }
        if synchronized && confirmed && parser.bufferedByteCount > 0 {
            out.append(.error("\(parser.bufferedByteCount) bytes of a frame abandoned at a \(count)-byte gap"))
        }
        // Bytes still being searched stay passed over; the search restarts after the gap.
        let passedOver = synchronized ? 0 : resync.dropped + resync.heldCount
        loseSync(keeping: [], from: 0)
        skipped += passedOver
        inflater = nil
    }

    /// Reports what was left undecoded at the end of the stream.
    mutating func finish(into out: inout [WebSocketStreamEvent]) {
        if closed { return }
        if synchronized && confirmed && parser.bufferedByteCount > 0 {
            out.append(.error("stream ended inside a frame (\(parser.bufferedByteCount) bytes not decoded)"))
        } else if confirmed && !synchronized && skipped + resync.dropped + resync.heldCount > 0 {
            out.append(.error("stream ended before WebSocket frames were found again (\(skipped + resync.dropped + resync.heldCount) bytes not decoded)"))
        }
        parser.reset()
        resync.reset()
        skipped = 0
        closed = true
    }

    private mutating func loseSync(keeping bytes: [UInt8], from: Int) {
        probation = nil
        parser.reset()
        assembler = MessageAssembler(maxMessageBytes: limits.maxMessageBytes, deflate: mayDeflate, requireMasking: masked ?? false)
        synchronized = false
        resync.reset(bytes, from: from)
    }

    private mutating func drainFrames(into out: inout [WebSocketStreamEvent]) {
        while synchronized {
            let frame: ParsedWebSocketFrame
            do {
                guard let f = try parser.next() else { return }
                frame = f
            } catch {
                if !confirmed { return falseStart(into: &out) }
                out.append(.error(error.description))
                loseSync(keeping: parser.takeBufferedBytes(), from: 1)
                return
            }
            handle(frame, into: &out)
        }
    }

    private mutating func handle(_ frame: ParsedWebSocketFrame, into out: inout [WebSocketStreamEvent]) {
        switch assembler.receive(header: frame.header.bits, payload: frame.payload) {
        case .none, .ping:
            return
        case .message(let text, let compressed, let payload):
            var bytes = payload
            if compressed {
                do {
                    bytes = try inflaterForUse().inflate(payload)
                } catch {
                    inflater = nil
                    if !confirmed { return falseStart(into: &out) }
                    out.append(.error("cannot inflate a \(payload.count)-byte message at stream offset \(frame.streamOffset): \(error)"
                                      + (deflate == nil ? " (no handshake seen: the compression context may be missing)" : "")))
                    return
                }
            }
            if !confirmed {
                guard text, Self.isJSONContainer(bytes) else { return falseStart(into: &out) }
                confirmed = true
                probation = nil
                out.append(.synchronized(skipped: skipped, masked: frame.header.bits.masked))
                skipped = 0
                masked = frame.header.bits.masked
            }
            out.append(.message(bytes, text: text))
        case .peerClosed(let code, let reason):
            guard confirmed else { return falseStart(into: &out) }
            out.append(.closeFrame(code: code, reason: reason))
            parser.reset()
            closed = true  // nothing legitimate follows a close frame
        case .fail(_, let why):
            guard confirmed else { return falseStart(into: &out) }
            out.append(.error("\(why) (frame at stream offset \(frame.streamOffset))"))
            loseSync(keeping: parser.takeBufferedBytes(), from: 0)
        }
    }

    /// A start found on probation turned out wrong: keep looking in what follows.
    /// The scan resumes one byte after the false start.
    private mutating func falseStart(into out: inout [WebSocketStreamEvent]) {
        inflater = nil
        let held = probation ?? parser.takeBufferedBytes()
        probation = nil
        loseSync(keeping: held, from: held.isEmpty ? 0 : 1)
    }

    static func isJSONContainer(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }),
              first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { return false }
        return (try? JSONParser().parse(bytes)) != nil
    }

    private mutating func inflaterForUse() throws -> PerMessageDeflate {
        if let inflater { return inflater }
        // Inflating the client's messages is the server's job, and the reverse.
        let codec = try PerMessageDeflate(agreement: deflate ?? DeflateAgreement(), maxMessageBytes: limits.maxMessageBytes,
                                          isServer: masked ?? true)
        inflater = codec
        return codec
    }

    /// Looks for frames in the held bytes; true when found (and now synchronized).
    private mutating func resynchronize(into out: inout [WebSocketStreamEvent]) -> Bool {
        guard let found = resync.find(masked: masked, lookAhead: !confirmed) else { return false }
        skipped += found.skipped
        if confirmed {
            out.append(.synchronized(skipped: skipped, masked: found.masked))
            skipped = 0
        }
        synchronized = true
        assembler = MessageAssembler(maxMessageBytes: limits.maxMessageBytes, deflate: mayDeflate,
                                     requireMasking: masked ?? found.masked)
        parser.append(contentsOf: found.bytes)
        if !confirmed { probation = found.bytes }
        return true
    }
}
