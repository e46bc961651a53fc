@testable import BridgeServer
import NIOCore
import NIOWebSocket
import Testing

/// The handler's per-frame fast paths: the ASCII shortcut of the UTF-8 check, and
/// unmasking straight into an array.
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
        for count in [0, 1, 3, 4, 5, 125, 126, 1000] {
            let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let key = WebSocketMaskingKey([0x12, 0x9A, 0xFE, 0x01])!
            var masked = allocator.buffer(bytes: payload)
            masked.webSocketMask(key)
            let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: key, data: masked)
            #expect(WebSocketBridgeHandler.unmaskedBytes(frame) == payload)
            let plain = WebSocketFrame(fin: true, opcode: .text, data: allocator.buffer(bytes: payload))
            #expect(WebSocketBridgeHandler.unmaskedBytes(plain) == payload)
        }
    }
}
