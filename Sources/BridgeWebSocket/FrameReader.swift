import NIOCore

/// Cuts a socket's byte stream into WebSocket frames for a live connection, holding at
/// most one partial frame, and stops after each header so the caller can check the
/// announced length (against the message limit and the ``MemoryBudget``) before a single
/// payload byte is buffered.
///
/// Pull model: call ``next(from:)`` until it returns `.needMore`; it consumes only the
/// bytes it uses. After `.header`, the next call allocates exactly the announced payload
/// length and starts filling it; a caller that refuses the frame simply stops calling.
public struct FrameReader: Sendable {
    /// What ``next(from:)`` found.
    public enum Step: Sendable {
        /// Every byte given was consumed; nothing complete yet.
        case needMore
        /// A frame's header is complete; its payload has not been buffered yet.
        case header(WebSocketFrameHeader)
        /// A complete frame, payload unmasked.
        case frame(WebSocketFrameHeader, [UInt8])
        /// A 64-bit length with its top bit set (RFC 6455 §5.2): a protocol error.
        case invalidLength
    }

    private var headerBytes: [UInt8] = []
    private var current: WebSocketFrameHeader?
    private var announced = false
    private var payload: [UInt8] = []

    /// Creates a reader.
    public init() {}

    /// Bytes held for the partial frame (its payload buffer's capacity).
    public var heldBytes: Int { payload.capacity + headerBytes.count }
    /// Whether a frame has begun and is not complete.
    public var inFrame: Bool { current != nil || !headerBytes.isEmpty }
    /// The partial frame's header, once read.
    var pendingHeader: WebSocketFrameHeader? { current }

    /// Reads from `input` as far as the next event.
    public mutating func next(from input: inout ByteBuffer) -> Step {
        if current == nil && headerBytes.isEmpty {
            // The usual case: the whole header is in `input`; read it in place.
            let peek = input.withUnsafeReadableBytes { WebSocketFrameHeader.peek($0) }
            switch peek {
            case .invalidLength:
                return .invalidLength
            case .header(let h):
                input.moveReaderIndex(forwardBy: h.headerLength)
                current = h
                announced = true
                return .header(h)
            case .needMore:
                break  // a header cut across reads: gather it below
            }
        }
        if current == nil {
            // At most 14 header bytes: look at what we have plus the start of `input`.
            let want = 14 - headerBytes.count
            let look = input.getBytes(at: input.readerIndex, length: min(want, input.readableBytes)) ?? []
            let candidate = headerBytes + look
            let peek = candidate.withUnsafeBytes { WebSocketFrameHeader.peek($0) }
            switch peek {
            case .needMore:
                headerBytes = candidate
                input.moveReaderIndex(forwardBy: look.count)
                return .needMore
            case .invalidLength:
                return .invalidLength
            case .header(let h):
                input.moveReaderIndex(forwardBy: h.headerLength - headerBytes.count)
                headerBytes = []
                current = h
                announced = true
                return .header(h)
            }
        }
        let h = current!
        if announced {
            announced = false
            payload = []
            payload.reserveCapacity(h.payloadLength)
        }
        let take = min(h.payloadLength - payload.count, input.readableBytes)
        if take > 0 {
            input.readWithUnsafeReadableBytes { raw in
                payload.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[0..<take]))
                return take
            }
        }
        guard payload.count == h.payloadLength else { return .needMore }
        if h.bits.masked && h.payloadLength > 0 {
            payload.withUnsafeMutableBytes { WebSocketFrameHeader.unmask($0, key: h.maskKey) }
        }
        let frame = payload
        payload = []
        current = nil
        return .frame(h, frame)
    }
}
