@testable import BridgeTransport
import BridgeWebSocket
import NIOCore
import NIOWebSocket
import Testing

/// The handler's per-frame fast paths: the ASCII shortcut of the UTF-8 check, and
/// ``FrameReader``'s unmasking (against NIO's masking).
struct FramePathTests {
    @Test(arguments: [
        ("", true), ("{}", true), (String(repeating: "a", count: 37), true),
        ("{\"name\":\"Zoë ✓ 🙂\"}", true), (String(repeating: "x", count: 16) + "é", true),
    ])
    func validUTF8IsAccepted(_ text: String, _ valid: Bool) {
        #expect(WebSocketBridgeHandler.isValidUTF8(Array(text.utf8)) == valid)
    }

    @Test func invalidUTF8IsRefusedWhereverItSits() {
        for bad: [UInt8] in [[0xC3, 0x28], [0xFF], [0xED, 0xA0, 0x80]] {  // truncated, never valid, surrogate
            for lead in [0, 3, 8, 15, 16] {
                let bytes = Array(repeating: UInt8(ascii: "a"), count: lead) + bad + Array("tail".utf8)
                #expect(!WebSocketBridgeHandler.isValidUTF8(bytes), "\(bytes)")
            }
        }
    }

    @Test func unmaskingMatchesNIO() {
        let allocator = ByteBufferAllocator()
        for count in [0, 1, 3, 4, 5, 125, 126, 1000, 70_000] {
            let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let key = WebSocketMaskingKey([0x12, 0x9A, 0xFE, 0x01])!
            var masked = allocator.buffer(bytes: payload)
            masked.webSocketMask(key)
            // NIO masks the payload; the reader must give it back.
            var wire = allocator.buffer(capacity: count + 14)
            let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: key, data: masked)
            wire.writeBytes(Self.header(frame))
            var data = frame.data
            wire.writeBuffer(&data)
            var reader = FrameReader()
            guard case .header = reader.next(from: &wire), case .frame(_, let got) = reader.next(from: &wire) else {
                Issue.record("no frame for \(count) bytes")
                continue
            }
            #expect(got == payload)
        }
    }

    /// A masked frame header as RFC 6455 §5.2 lays it out.
    static func header(_ frame: WebSocketFrame) -> [UInt8] {
        let n = frame.data.readableBytes
        var h: [UInt8] = [0x80 | frame.opcode.rawValueForTests]
        if n < 126 { h.append(0x80 | UInt8(n)) } else if n <= 0xFFFF { h += [0x80 | 126, UInt8(n >> 8), UInt8(n & 0xFF)] } else {
            h.append(0x80 | 127)
            for s in stride(from: 56, through: 0, by: -8) { h.append(UInt8((n >> s) & 0xFF)) }
        }
        let key = frame.maskKey!
        return h + [key[0], key[1], key[2], key[3]]
    }
}

extension WebSocketOpcode {
    fileprivate var rawValueForTests: UInt8 { UInt8(webSocketOpcode: self) }
}
