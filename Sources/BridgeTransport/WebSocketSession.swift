import BridgeWebSocket
import NIOCore
import NIOWebSocket
import Synchronization

/// An open client connection: ``send(_:)`` text messages, read ``messages``.
public final class WebSocketSession: Sendable {
    /// Complete text messages from the server, in order; finishes when the socket closes.
    public let messages: AsyncStream<[UInt8]>
    private let continuation: AsyncStream<[UInt8]>.Continuation
    private let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>
    /// The negotiated permessage-deflate codec (not Sendable: only used under the lock).
    private let codec: Mutex<PerMessageDeflate?>
    private let deflates: Bool
    /// Close code the server sent, when it closed.
    public var closeCode: CloseCode? { closeState.withLock { $0 } }
    private let closeState = Mutex<CloseCode?>(nil)

    init(outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>, codec: sending PerMessageDeflate?) {
        self.outbound = outbound
        self.deflates = codec != nil
        self.codec = Mutex(codec)
        (messages, continuation) = AsyncStream.makeStream(of: [UInt8].self)
    }

    /// Sends one text message (deflated when negotiated). Messages are sent in call order.
    public func send(_ message: [UInt8]) async throws {
        let frame: WebSocketFrame = try codec.withLock { codec in
            var payload = message
            var rsv1 = false
            if let codec {
                payload = try codec.deflate(message)
                rsv1 = true
            }
            return WebSocketFrame(fin: true, rsv1: rsv1, opcode: .text, maskKey: .random(), data: ByteBuffer(bytes: payload))
        }
        try await outbound.write(frame)
    }

    /// Sends one text message given as a string.
    public func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    /// Sends a close frame with 1000.
    public func close() async throws {
        var data = ByteBuffer()
        data.writeInteger(CloseCode.normal.rawValue)
        try await outbound.write(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data))
    }

    func pump(_ inbound: NIOAsyncChannelInboundStream<WebSocketFrame>, maxMessageBytes: Int, maxInflationRatio: Int = 100) async throws {
        var assembler = MessageAssembler(maxMessageBytes: maxMessageBytes, deflate: deflates, requireMasking: false)
        defer { continuation.finish() }
        for try await frame in inbound {
            let opcode = MessageAssembler.Opcode(rawValue: UInt8(webSocketOpcode: frame.opcode))
            let header = MessageAssembler.FrameHeader(fin: frame.fin, rsv1: frame.rsv1, rsv2: frame.rsv2, rsv3: frame.rsv3,
                                                      opcode: opcode, masked: frame.maskKey != nil)
            var data = frame.unmaskedData
            switch assembler.receive(header: header, payload: data.readBytes(length: data.readableBytes) ?? []) {
            case .none: continue
            case .ping(let payload):
                try await outbound.write(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: ByteBuffer(bytes: payload)))
            case .peerClosed(let code, _):
                closeState.withLock { $0 = code }
                return
            case .fail(let code, _):
                closeState.withLock { $0 = code }
                return
            case .message(_, let compressed, let payload):
                // The server's inflation ratio (docs/SECURITY.md), in the same 1 MiB slices.
                let inflated: Result<[UInt8], DeflateError> = compressed ? codec.withLock { codec in
                    var job = codec!.beginInflating(payload)
                    do throws(DeflateError) {
                        while true {
                            if let out = try codec!.continueInflating(&job, slice: 1 << 20, maxRatio: maxInflationRatio) { return .success(out) }
                        }
                    } catch { return .failure(error) }
                } : .success(payload)
                switch inflated {
                case .success(let message):
                    continuation.yield(message)
                case .failure(let error) where error.kind == .tooCompressed || error.kind == .tooLarge:
                    closeState.withLock { $0 = .messageTooBig }
                    var data = ByteBuffer()
                    data.writeInteger(CloseCode.messageTooBig.rawValue)
                    try? await outbound.write(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data))
                    return
                case .failure(let error):
                    throw error
                }
            }
        }
    }
}
