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
    private var resyncBuffer: [UInt8] = []
    private var resyncFrom = 0
    private var skipped = 0
    private var closed = false

    /// A decoder for a direction whose handshake was seen.
    init(masked: Bool, deflate: DeflateAgreement?, limits: CaptureLimits) {
        self.masked = masked
        self.confirmed = true
        self.limits = limits
        self.deflate = deflate
        self.mayDeflate = deflate != nil
        self.parser = WebSocketFrameParser(maxFrameSize: limits.maxMessageBytes)
        self.assembler = MessageAssembler(maxMessageBytes: limits.maxMessageBytes, deflate: deflate != nil, requireMasking: masked)
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
        self.synchronized = false
    }

    /// Sets the role once the other direction revealed it.
    mutating func learnRole(masked m: Bool) {
        guard masked == nil else { return }
        masked = m
        if synchronized && !confirmed { loseSync(keeping: parser.takeBufferedBytes(), from: 0) }
        resyncFrom = 0
    }

    /// Re-examines held bytes (after ``learnRole(masked:)``).
    mutating func poke(into out: inout [WebSocketStreamEvent]) {
        pump(into: &out)
    }

    /// Feeds stream bytes.
    mutating func receive(_ bytes: [UInt8], into out: inout [WebSocketStreamEvent]) {
        if closed { return }
        if synchronized {
            parser.append(contentsOf: bytes)
        } else {
            resyncBuffer.append(contentsOf: bytes)
        }
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
        let unsynchronized = synchronized ? 0 : skipped + resyncBuffer.count
        loseSync(keeping: [], from: 0)
        skipped = unsynchronized
        inflater = nil
    }

    /// Reports what was left undecoded at the end of the stream.
    mutating func finish(into out: inout [WebSocketStreamEvent]) {
        if closed { return }
        if synchronized && confirmed && parser.bufferedByteCount > 0 {
            out.append(.error("stream ended inside a frame (\(parser.bufferedByteCount) bytes not decoded)"))
        } else if confirmed && !synchronized && skipped + resyncBuffer.count > 0 {
            out.append(.error("stream ended before WebSocket frames were found again (\(skipped + resyncBuffer.count) bytes not decoded)"))
        }
        parser.reset()
        resyncBuffer = []
        resyncFrom = 0
        skipped = 0
        closed = true
    }

    private mutating func loseSync(keeping bytes: [UInt8], from: Int) {
        parser.reset()
        assembler = MessageAssembler(maxMessageBytes: limits.maxMessageBytes, deflate: mayDeflate, requireMasking: masked ?? false)
        synchronized = false
        resyncBuffer = bytes
        resyncFrom = from
    }

    private mutating func drainFrames(into out: inout [WebSocketStreamEvent]) {
        while synchronized {
            let frame: ParsedWebSocketFrame
            do {
                guard let f = try parser.next() else { return }
                frame = f
            } catch {
                if confirmed { out.append(.error(error.description)) }
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
    private mutating func falseStart(into out: inout [WebSocketStreamEvent]) {
        inflater = nil
        loseSync(keeping: parser.takeBufferedBytes(), from: 0)
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
        let scanner = FrameResynchronizer(maxFrameSize: limits.maxMessageBytes)
        let result = resyncBuffer.withUnsafeBytes { scanner.scan($0, from: resyncFrom, masked: masked) }
        switch result {
        case .needMore(let from):
            resyncFrom = from
            // Bytes before `from` are rejected for good; a waiting candidate may hold
            // the rest, but never more than maxResyncBytes.
            var drop = resyncFrom >= 4096 ? resyncFrom : 0
            if resyncBuffer.count > limits.maxResyncBytes { drop = max(resyncFrom, resyncBuffer.count / 2) }
            if drop > 0 {
                resyncBuffer.removeFirst(drop)
                resyncFrom = max(0, resyncFrom - drop)
                skipped += drop
            }
            return false
        case .found(let offset, let m):
            skipped += offset
            if confirmed {
                out.append(.synchronized(skipped: skipped, masked: m))
                skipped = 0
            }
            synchronized = true
            assembler = MessageAssembler(maxMessageBytes: limits.maxMessageBytes, deflate: mayDeflate,
                                         requireMasking: masked ?? m)
            parser.append(contentsOf: resyncBuffer[offset...])
            resyncBuffer = []
            resyncFrom = 0
            return true
        }
    }
}
