/// Reassembles WebSocket data frames into messages and decides what every frame means,
/// as a pure state machine: it is fed frame headers and unmasked payloads and returns
/// an action; the caller writes frames, inflates, closes.
///
/// Rules enforced (RFC 6455 §5, RFC 7692 §6): client frames must be masked (when
/// `requireMasking`); RSV2/RSV3 are never set; RSV1 only on the first frame of a data
/// message and only when permessage-deflate was negotiated; continuation frames only
/// inside a fragmented message; control frames are not fragmented and carry at most 125
/// bytes; a message may not exceed `maxMessageBytes` (checked before buffering).
public struct MessageAssembler: Sendable {
    /// The opcode of a frame (an open set: reserved opcodes are representable).
    public struct Opcode: RawRepresentable, Sendable, Hashable {
        /// The 4-bit opcode.
        public let rawValue: UInt8
        /// Wraps an opcode.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// 0x0.
        public static let continuation = Opcode(rawValue: 0x0)
        /// 0x1.
        public static let text = Opcode(rawValue: 0x1)
        /// 0x2.
        public static let binary = Opcode(rawValue: 0x2)
        /// 0x8.
        public static let close = Opcode(rawValue: 0x8)
        /// 0x9.
        public static let ping = Opcode(rawValue: 0x9)
        /// 0xA.
        public static let pong = Opcode(rawValue: 0xA)
        /// Whether this is a control opcode (0x8–0xF).
        var isControl: Bool { rawValue & 0x8 != 0 }
    }

    /// The header bits of one frame.
    public struct FrameHeader: Sendable, Hashable {
        /// FIN bit.
        public var fin: Bool
        /// RSV1 bit (permessage-deflate's "compressed").
        public var rsv1: Bool
        /// RSV2 bit.
        public var rsv2: Bool
        /// RSV3 bit.
        public var rsv3: Bool
        /// Opcode.
        public var opcode: Opcode
        /// Whether the frame was masked.
        public var masked: Bool

        /// Creates a header.
        public init(fin: Bool, rsv1: Bool = false, rsv2: Bool = false, rsv3: Bool = false, opcode: Opcode, masked: Bool) {
            self.fin = fin
            self.rsv1 = rsv1
            self.rsv2 = rsv2
            self.rsv3 = rsv3
            self.opcode = opcode
            self.masked = masked
        }
    }

    /// What the caller should do after a frame.
    public enum Action: Sendable, Equatable {
        /// Nothing yet (a fragment was buffered, or a pong arrived).
        case none
        /// A complete data message. `compressed` means permessage-deflate: inflate it.
        case message(text: Bool, compressed: Bool, payload: [UInt8])
        /// Answer with a pong carrying this payload.
        case ping([UInt8])
        /// The peer closed: echo a close with this code and close the connection.
        case peerClosed(code: CloseCode?, reason: String)
        /// The peer broke the protocol: close with this code, then close the connection.
        case fail(CloseCode, String)
    }

    /// Largest message accepted, in bytes (compressed size for deflated messages; the
    /// inflater enforces the same limit on the inflated size).
    public let maxMessageBytes: Int
    /// Whether permessage-deflate was negotiated (RSV1 allowed on first frames).
    public let deflate: Bool
    /// Whether frames must be masked (true on a server).
    public let requireMasking: Bool

    private var fragmentOpcode: Opcode?
    private var fragmentCompressed = false
    private var buffer: [UInt8] = []
    private var closed = false

    /// Bytes buffered for a fragmented message in progress (its buffer's capacity).
    public var bufferedByteCount: Int { buffer.capacity }
    /// Whether a fragmented message has begun and is not complete.
    public var inFragmentedMessage: Bool { fragmentOpcode != nil }

    /// Creates an assembler.
    public init(maxMessageBytes: Int, deflate: Bool, requireMasking: Bool) {
        self.maxMessageBytes = maxMessageBytes
        self.deflate = deflate
        self.requireMasking = requireMasking
    }

    /// Checks a frame's header before its payload is buffered: `payloadLength` is the
    /// length the header announces. Returns a `.fail` action or nil when acceptable.
    public func check(header h: FrameHeader, payloadLength: Int) -> Action? {
        if closed { return .fail(.protocolError, "frame after close") }
        if requireMasking && !h.masked { return .fail(.protocolError, "client frame is not masked") }
        if h.rsv2 || h.rsv3 { return .fail(.protocolError, "reserved bits RSV2/RSV3 set") }
        if h.opcode.isControl {
            if !h.fin { return .fail(.protocolError, "fragmented control frame") }
            if payloadLength > 125 { return .fail(.protocolError, "control frame payload over 125 bytes") }
            if h.rsv1 { return .fail(.protocolError, "RSV1 set on a control frame") }
            if ![Opcode.close, .ping, .pong].contains(h.opcode) { return .fail(.protocolError, "reserved control opcode \(h.opcode.rawValue)") }
            return nil
        }
        switch h.opcode {
        case .continuation:
            if fragmentOpcode == nil { return .fail(.protocolError, "continuation frame outside a fragmented message") }
            if h.rsv1 { return .fail(.protocolError, "RSV1 set on a continuation frame") }
        case .text, .binary:
            if fragmentOpcode != nil { return .fail(.protocolError, "new data frame inside a fragmented message") }
            if h.rsv1 && !deflate { return .fail(.protocolError, "RSV1 set but permessage-deflate was not negotiated") }
        default:
            return .fail(.protocolError, "reserved data opcode \(h.opcode.rawValue)")
        }
        if buffer.count + payloadLength > maxMessageBytes {
            return .fail(.messageTooBig, "message over the limit of \(maxMessageBytes) bytes")
        }
        return nil
    }

    /// Feeds one frame (payload already unmasked) and returns what to do.
    public mutating func receive(header h: FrameHeader, payload: [UInt8]) -> Action {
        if let failure = check(header: h, payloadLength: payload.count) {
            closed = true
            return failure
        }
        switch h.opcode {
        case .close:
            closed = true
            if payload.count == 1 { return .fail(.protocolError, "close frame with a 1-byte payload") }
            guard payload.count >= 2 else { return .peerClosed(code: nil, reason: "") }
            let code = CloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
            guard let reason = String(validating: payload[2...], as: UTF8.self) else {
                return .fail(.invalidPayload, "close reason is not UTF-8")
            }
            return .peerClosed(code: code, reason: reason)
        case .ping:
            return .ping(payload)
        case .pong:
            return .none
        case .text, .binary:
            if h.fin {
                return .message(text: h.opcode == .text, compressed: h.rsv1, payload: payload)
            }
            fragmentOpcode = h.opcode
            fragmentCompressed = h.rsv1
            buffer = payload
            return .none
        default:  // continuation
            buffer.append(contentsOf: payload)
            guard h.fin else { return .none }
            let message = Action.message(text: fragmentOpcode == .text, compressed: fragmentCompressed, payload: buffer)
            fragmentOpcode = nil
            fragmentCompressed = false
            buffer = []
            return message
        }
    }
}
