import BridgeCapture
import BridgePcap
import BridgeProxy
import BridgeWebSocket

/// Scripts a WebSocket session over a ``Conversation``: handshake, frames (masked from
/// the client, compressed with permessage-deflate when agreed), packets as captured.
struct WebSocketSession {
    var tcp = Conversation()
    let deflate: DeflateAgreement?
    let clientCodec: PerMessageDeflate?
    let serverCodec: PerMessageDeflate?
    /// Messages sent, in order, with their direction ("w2h" / "h2w").
    var sent: [TestMessage] = []
    var packets: [[UInt8]] = []
    private var maskCounter: UInt32 = 0x0102_0304

    init(deflate: DeflateAgreement?, tcp: Conversation = Conversation()) throws {
        self.tcp = tcp
        self.deflate = deflate
        if let deflate {
            clientCodec = try PerMessageDeflate(agreement: deflate, maxMessageBytes: 1 << 24, isServer: false)
            serverCodec = try PerMessageDeflate(agreement: deflate, maxMessageBytes: 1 << 24, isServer: true)
        } else {
            clientCodec = nil
            serverCodec = nil
        }
    }

    static func envelope(_ i: Int, _ type: String = "request", extra: String = "") -> [UInt8] {
        Array(#"{"version":"1.0","correlationId":"id-\#(i)","type":"\#(type)","timestamp":1700000000000,"payload":{"action":"camera.document.capture","data":{"n":\#(i)\#(extra)}}}"#.utf8)
    }

    mutating func handshake(offer: String = "permessage-deflate; client_max_window_bits", target: String = "/bridge") {
        packets += tcp.handshake()
        let request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:8787\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + (deflate != nil ? "Sec-WebSocket-Extensions: \(offer)\r\n" : "") + "\r\n"
        packets.append(tcp.send(fromClient: true, Array(request.utf8)))
        var response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
        if let deflate { response += "Sec-WebSocket-Extensions: \(deflate.responseHeader)\r\n" }
        response += "\r\n"
        packets.append(tcp.send(fromClient: false, Array(response.utf8)))
    }

    /// The frames of one message (split into `fragments` frames), recording it as sent.
    mutating func frames(fromClient: Bool, _ message: [UInt8], compress: Bool = true, fragments: Int = 1) throws -> [UInt8] {
        sent.append(TestMessage(direction: fromClient ? "w2h" : "h2w", bytes: message))
        var body = message
        let codec = fromClient ? clientCodec : serverCodec
        let compressed = compress && codec != nil
        if compressed, let codec { body = try codec.deflate(message) }
        var out: [UInt8] = []
        let size = max(1, (body.count + fragments - 1) / fragments)
        var pieces = stride(from: 0, to: body.count, by: size).map { Array(body[$0..<min(body.count, $0 + size)]) }
        if pieces.isEmpty { pieces = [[]] }
        for (i, piece) in pieces.enumerated() {
            maskCounter = maskCounter &* 1_103_515_245 &+ 12345
            out += WebSocketFrameHeader.encode(fin: i == pieces.count - 1, rsv1: compressed && i == 0,
                                               opcode: i == 0 ? .text : .continuation,
                                               maskKey: fromClient ? maskCounter : nil, payload: piece)
        }
        return out
    }

    /// A control frame (not recorded as a message).
    mutating func control(fromClient: Bool, _ opcode: MessageAssembler.Opcode, _ payload: [UInt8] = []) -> [UInt8] {
        maskCounter = maskCounter &* 1_103_515_245 &+ 12345
        return WebSocketFrameHeader.encode(opcode: opcode, maskKey: fromClient ? maskCounter : nil, payload: payload)
    }

    /// Sends bytes as one segment, or as segments of at most `segmentSize` bytes.
    mutating func send(fromClient: Bool, _ bytes: [UInt8], segmentSize: Int = 65_000) {
        var i = 0
        while i < bytes.count {
            let end = min(bytes.count, i + segmentSize)
            packets.append(tcp.send(fromClient: fromClient, Array(bytes[i..<end])))
            i = end
        }
    }

    mutating func close() {
        send(fromClient: true, control(fromClient: true, .close, [0x03, 0xE8]))
        send(fromClient: false, control(fromClient: false, .close, [0x03, 0xE8]))
        packets += tcp.close()
    }

    /// Decodes `packets` (default: all) as one Ethernet capture.
    static func decode(_ packets: [[UInt8]], linkType: LinkType = .ethernet, limits: CaptureLimits = .default) -> (outputs: [CaptureOutput], decoder: CaptureDecoder) {
        let decoder = CaptureDecoder(limits: limits)
        var out: [CaptureOutput] = []
        for (i, p) in packets.enumerated() {
            p.withUnsafeBytes { decoder.receive(time: Int64(i) * 1000, linkType: linkType, packet: $0, into: &out) }
        }
        decoder.finish(time: Int64(packets.count) * 1000, into: &out)
        return (out, decoder)
    }
}

extension [CaptureOutput] {
    var errors: [String] {
        compactMap {
            if case .error(_, _, let t) = $0 { return t }
            return nil
        }
    }

    var gaps: [Int] {
        compactMap {
            if case .gap(_, _, _, let n) = $0 { return n }
            return nil
        }
    }

    var kinds: [String] {
        map {
            switch $0 {
            case .message: return "message"
            case .open: return "open"
            case .close: return "close"
            case .gap: return "gap"
            case .drop: return "drop"
            case .error: return "error"
            }
        }
    }
}
