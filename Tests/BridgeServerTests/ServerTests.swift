import BridgeServer
import BridgeTransport
import BridgeWebSocket
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing

/// Echoes every message back, prefixed, so tests can see what arrived whole.
final class EchoConnection: BridgeConnection {
    let outbound = NIOLockedValueBox<BridgeOutbound?>(nil)
    func opened(outbound: BridgeOutbound) { self.outbound.withLockedValue { $0 = outbound } }
    func received(_ message: [UInt8]) { outbound.withLockedValue { $0 }?.send(Array("echo:".utf8) + message) }
    func closed(code: CloseCode?) {}
}

/// Starts a server on a free port for one test and shuts it down after.
func withServer(_ configure: (inout WebSocketServerConfiguration) -> Void = { _ in },
                _ body: (Int, WebSocketServer) async throws -> Void) async throws {
    // No idle close unless a test asks for one: in a full run the client side of these
    // tests can wait minutes for the cooperative pool (synchronous tests hold it), and
    // the default 120 s idle timeout then closed a connection mid-test.
    var cfg = WebSocketServerConfiguration(port: 0, idleTimeout: 900)
    configure(&cfg)
    var logger = Logger(label: "test")
    logger.logLevel = .critical
    let server = WebSocketServer(configuration: cfg, logger: logger) { _ in EchoConnection() }
    let port = try await server.start()
    do { try await body(port, server) } catch { await server.shutdown(); throw error }
    await server.shutdown()
}

func handshakeStatus(_ port: Int, origin: String) throws -> Int {
    let c = try RawWebSocketClient(port: port)
    return try c.handshake(origin: origin)
}

@Suite(.serialized)
struct ServerTests {
    @Test func echoesATextMessage() async throws {
        try await withServer { port, _ async throws in
            let c = try RawWebSocketClient(port: port)
            #expect(try c.handshake() == 101)
            try c.sendText(#"{"hello":"world"}"#)
            #expect(try c.readDataOrClose().text == #"echo:{"hello":"world"}"#)
        }
    }

    @Test func plainHTTPRoutes() async throws {
        try await withServer { port, _ async throws in
            let c = try RawWebSocketClient(port: port)
            try c.sendRaw(Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            #expect(c.waitForEOF() || true)
            let c2 = try RawWebSocketClient(port: port)
            #expect(try c2.handshake(path: "/nope") == 404)
        }
    }

    @Test func foreignOriginIsForbiddenLoopbackIsAllowed() async throws {
        try await withServer { port, _ async throws in
            #expect(try handshakeStatus(port, origin: "https://evil.example") == 403)
            #expect(try handshakeStatus(port, origin: "http://127.0.0.1:8787") == 101)
            #expect(try handshakeStatus(port, origin: "http://localhost:3000") == 101)
            #expect(try handshakeStatus(port, origin: "http://127.0.0.1.evil.example") == 403)
        }
        try await withServer({ $0.allowedOrigins = ["https://journey.example"] }) { port, _ async throws in
            #expect(try handshakeStatus(port, origin: "https://journey.example") == 101)
            #expect(try handshakeStatus(port, origin: "http://127.0.0.1:8787") == 403)
        }
    }

    struct BadFrame: Sendable, CustomTestStringConvertible {
        var name: String
        var expected: UInt16
        var testDescription: String { name }
    }

    @Test(arguments: [
        BadFrame(name: "binary", expected: 1003), BadFrame(name: "invalid-utf8", expected: 1007),
        BadFrame(name: "oversized", expected: 1009), BadFrame(name: "oversized-fragments", expected: 1009),
        BadFrame(name: "unmasked", expected: 1002), BadFrame(name: "rsv1-without-deflate", expected: 1002),
        BadFrame(name: "stray-continuation", expected: 1002), BadFrame(name: "fragmented-ping", expected: 1002),
    ])
    func hostileFramesCloseWithTheRightCode(_ bad: BadFrame) async throws {
        try await withServer({ $0.maxMessageBytes = 1024 }) { port, _ async throws in
            let c = try RawWebSocketClient(port: port)
            #expect(try c.handshake() == 101)
            switch bad.name {
            case "binary": try c.sendFrame(opcode: 2, [1, 2, 3])
            case "invalid-utf8": try c.sendFrame(opcode: 1, [0x7B, 0xC3, 0x28, 0x7D])
            case "oversized": try c.sendFrame(opcode: 1, Array(repeating: 0x20, count: 2000))
            case "oversized-fragments":
                try c.sendFrame(opcode: 1, Array(repeating: 0x20, count: 800), fin: false)
                try c.sendFrame(opcode: 0, Array(repeating: 0x20, count: 800))
            case "unmasked": try c.sendFrame(opcode: 1, Array("{}".utf8), masked: false)
            case "rsv1-without-deflate": try c.sendFrame(opcode: 1, Array("{}".utf8), rsv1: true)
            case "stray-continuation": try c.sendFrame(opcode: 0, Array("{}".utf8))
            default: try c.sendFrame(opcode: 9, [1], fin: false)
            }
            let f = try c.readDataOrClose()
            #expect(f.opcode == 8)
            #expect(f.closeCode == bad.expected)
            #expect(c.waitForEOF())
            // The server still serves others.
            let other = try RawWebSocketClient(port: port)
            #expect(try other.handshake() == 101)
            try other.sendText("{}")
            #expect(try other.readDataOrClose().text == "echo:{}")
        }
    }

    @Test func fragmentedMessageIsReassembled() async throws {
        try await withServer { port, _ async throws in
            let c = try RawWebSocketClient(port: port)
            try c.handshake()
            try c.sendFrame(opcode: 1, Array(#"{"a":"#.utf8), fin: false)
            try c.sendFrame(opcode: 9, Array("p".utf8))  // a ping between fragments is allowed
            #expect(try c.readFrame().opcode == 10)
            try c.sendFrame(opcode: 0, Array(#""é""#.utf8), fin: false)
            try c.sendFrame(opcode: 0, Array("}".utf8))
            #expect(try c.readDataOrClose().text == #"echo:{"a":"é"}"#)
        }
    }

    @Test func permessageDeflateIsNegotiatedAndWorksBothWays() async throws {
        try await withServer { port, _ async throws in
            let c = try RawWebSocketClient(port: port)
            #expect(try c.handshake(extensions: "permessage-deflate; client_max_window_bits") == 101)
            #expect(c.header("sec-websocket-extensions") == "permessage-deflate")
            let agreement = DeflateAgreement(serverNoContextTakeover: false, clientNoContextTakeover: false,
                                             serverMaxWindowBits: 15, clientMaxWindowBits: 15)
            let client = try PerMessageDeflate(agreement: agreement, maxMessageBytes: 1 << 20, isServer: false)
            for i in 0..<3 {  // context takeover across messages, both directions
                let msg = #"{"n":\#(i),"payload":"\#(String(repeating: "abc", count: 100))"}"#
                try c.sendFrame(opcode: 1, try client.deflate(Array(msg.utf8)), rsv1: true)
                let f = try c.readDataOrClose()
                #expect(f.rsv1)
                #expect(String(decoding: try client.inflate(f.payload), as: UTF8.self) == "echo:" + msg)
            }
        }
        try await withServer({ $0.deflate = false }) { port, _ async throws in
            let c = try RawWebSocketClient(port: port)
            #expect(try c.handshake(extensions: "permessage-deflate") == 101)
            #expect(c.header("sec-websocket-extensions") == nil)
        }
    }

    @Test func deflateBombIsMessageTooBig() async throws {
        try await withServer({ $0.maxMessageBytes = 4096 }) { port, _ async throws in
            let c = try RawWebSocketClient(port: port)
            try c.handshake(extensions: "permessage-deflate")
            let agreement = DeflateAgreement(serverNoContextTakeover: false, clientNoContextTakeover: false,
                                             serverMaxWindowBits: 15, clientMaxWindowBits: 15)
            let client = try PerMessageDeflate(agreement: agreement, maxMessageBytes: 1 << 24, isServer: false)
            let bomb = try client.deflate(Array(repeating: 0x20, count: 1 << 20))
            #expect(bomb.count < 4096)
            try c.sendFrame(opcode: 1, bomb, rsv1: true)
            #expect(try c.readDataOrClose().closeCode == 1009)
        }
    }

    @Test func handshakeThatNeverCompletesIsDropped() async throws {
        try await withServer({ $0.handshakeTimeout = 0.3 }) { port, _ async throws in
            let c = try RawWebSocketClient(port: port)
            try c.sendRaw(Array("GET /bridge HTTP/1.1\r\nHost: x\r\n".utf8))  // never finished
            #expect(c.waitForEOF())
        }
    }

    @Test func idlePeerIsClosedWithGoingAway() async throws {
        try await withServer({ $0.pingInterval = 0.1; $0.idleTimeout = 0.3 }) { port, _ async throws in
            let c = try RawWebSocketClient(port: port)
            try c.handshake()
            var sawPing = false
            while true {
                let f = try c.readFrame()
                if f.opcode == 9 { sawPing = true; continue }
                #expect(f.closeCode == 1001)
                break
            }
            #expect(sawPing)
        }
    }

    @Test func shutdownClosesOpenSocketsWithGoingAway() async throws {
        var cfg = WebSocketServerConfiguration(port: 0)
        cfg.pingInterval = 60
        var logger = Logger(label: "t")
        logger.logLevel = .critical
        let server = WebSocketServer(configuration: cfg, logger: logger) { _ in EchoConnection() }
        let port = try await server.start()
        let c = try RawWebSocketClient(port: port)
        try c.handshake()
        try c.sendText("{}")
        _ = try c.readDataOrClose()
        await server.shutdown()
        #expect(try c.readDataOrClose().closeCode == 1001)
    }
}
