/// One WebSocket frame read from a byte stream, payload already unmasked.
public struct ParsedWebSocketFrame: Sendable, Hashable {
    /// The frame's header.
    public var header: WebSocketFrameHeader
    /// The payload, unmasked.
    public var payload: [UInt8]
    /// Offset of the frame's first header byte in the stream fed to the parser.
    public var streamOffset: Int

    /// Creates a frame.
    public init(header: WebSocketFrameHeader, payload: [UInt8], streamOffset: Int) {
        self.header = header
        self.payload = payload
        self.streamOffset = streamOffset
    }
}

/// Why the bytes fed to a ``WebSocketFrameParser`` are not a frame sequence.
public struct WebSocketFrameError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public enum Kind: Sendable, Hashable {
        /// A 64-bit length with its top bit set, or beyond what can be addressed.
        case invalidLength
        /// A payload longer than ``WebSocketFrameParser/maxFrameSize``.
        case frameTooLarge
    }
    /// What was wrong.
    public var kind: Kind
    /// Stream offset of the offending frame's first byte.
    public var offset: Int
    /// A sentence for logs and capture events.
    public var description: String
}

/// An incremental RFC 6455 frame parser: a value type fed bytes in any split, returning
/// `nil` for "need more" and throwing only for malformed input.
///
/// It checks framing only (lengths, the size limit); what frames mean — masking rules,
/// fragmentation, control frames — is ``MessageAssembler``'s job. The announced payload
/// length is checked against ``maxFrameSize`` as soon as the header is complete, before
/// any payload is buffered, so the parser holds at most one partial frame of at most
/// `maxFrameSize + 14` bytes plus whatever the caller appended in one call. Call
/// ``next()`` until it returns `nil` after every ``append(_:)``.
///
/// After a throw the parser's position is unchanged (the bad frame stays first); call
/// ``reset()`` before feeding it again.
public struct WebSocketFrameParser: Sendable {
    /// Default ``maxFrameSize``: 16 MiB, the bridge's message cap (PROTOCOL.md §6).
    public static let defaultMaxFrameSize = 16 << 20

    /// Largest payload accepted in one frame, in bytes.
    public let maxFrameSize: Int
    private var buffer: [UInt8] = []
    private var start = 0
    /// Stream offset of `buffer[start]`.
    public private(set) var streamOffset = 0

    /// Creates a parser.
    public init(maxFrameSize: Int = WebSocketFrameParser.defaultMaxFrameSize) {
        self.maxFrameSize = maxFrameSize
    }

    /// Bytes appended but not yet returned as frames.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Appends stream bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compactIfUseful()
        buffer.append(contentsOf: bytes)
    }

    /// Appends stream bytes.
    public mutating func append<Bytes: Sequence>(contentsOf bytes: Bytes) where Bytes.Element == UInt8 {
        compactIfUseful()
        buffer.append(contentsOf: bytes)
    }

    /// Drops every buffered byte (after an error or a stream gap) and returns how many
    /// were dropped. `streamOffset` moves past them.
    @discardableResult
    public mutating func reset() -> Int {
        let n = bufferedByteCount
        streamOffset += n
        buffer.removeAll(keepingCapacity: true)
        start = 0
        return n
    }

    /// Removes and returns every buffered byte (to look for frames elsewhere after an
    /// error); `streamOffset` moves past them.
    public mutating func takeBufferedBytes() -> [UInt8] {
        let bytes = Array(buffer[start...])
        reset()
        return bytes
    }

    /// The next complete frame, `nil` when more bytes are needed.
    public mutating func next() throws(WebSocketFrameError) -> ParsedWebSocketFrame? {
        let available = buffer.count - start
        let peek = buffer.withUnsafeBytes { raw in
            WebSocketFrameHeader.peek(UnsafeRawBufferPointer(rebasing: raw[start...]))
        }
        switch peek {
        case .needMore:
            return nil
        case .invalidLength:
            throw WebSocketFrameError(kind: .invalidLength, offset: streamOffset,
                                      description: "frame at stream offset \(streamOffset) has an invalid 64-bit payload length")
        case .header(let h):
            guard h.payloadLength <= maxFrameSize else {
                throw WebSocketFrameError(kind: .frameTooLarge, offset: streamOffset,
                                          description: "frame at stream offset \(streamOffset) announces \(h.payloadLength) bytes, over the limit of \(maxFrameSize)")
            }
            guard available >= h.frameLength else { return nil }
            let from = start + h.headerLength
            var payload = Array(buffer[from..<(from + h.payloadLength)])
            if h.bits.masked && h.payloadLength > 0 {
                payload.withUnsafeMutableBytes { WebSocketFrameHeader.unmask($0, key: h.maskKey) }
            }
            let frame = ParsedWebSocketFrame(header: h, payload: payload, streamOffset: streamOffset)
            start += h.frameLength
            streamOffset += h.frameLength
            if start == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                start = 0
            }
            return frame
        }
    }

    private mutating func compactIfUseful() {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
    }
}
