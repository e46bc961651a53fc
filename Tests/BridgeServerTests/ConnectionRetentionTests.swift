import BridgeServer
import BridgeTransport
import BridgeWebSocket
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing

/// An echo connection that keeps its outbound (as the reference host's does) and is counted.
final class CountedEchoConnection: BridgeConnection {
    let outbound = NIOLockedValueBox<BridgeOutbound?>(nil)
    let live: LiveCount
    init(_ live: LiveCount) { self.live = live; live.add(1) }
    deinit { live.add(-1) }
    func opened(outbound: BridgeOutbound) { self.outbound.withLockedValue { $0 = outbound } }
    func received(_ message: [UInt8]) { outbound.withLockedValue { $0 }?.send(message) }
    func closed(code: CloseCode?) {}
}

/// Issue 42's soak: every closed connection stayed in memory (8.5 KB each, 101 KB with
/// permessage-deflate; a host at 621 MB after 30 minutes of churn): the handler kept the
/// connection, the connection kept its outbound, and the outbound kept the handler. A
/// connection closed either way, cleanly or by a reset, is freed.
@Suite(.serialized)
struct ConnectionRetentionTests {
    @Test(arguments: [false, true])
    func closedConnectionsAreFreed(deflate: Bool) async throws {
        let live = LiveCount()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let server = WebSocketServer(configuration: WebSocketServerConfiguration(port: 0, idleTimeout: 900), logger: logger) { _ in
            CountedEchoConnection(live)
        }
        let port = try await server.start()
        let url = WebSocketURL("ws://127.0.0.1:\(port)/bridge")!
        // Closed cleanly by the client.
        for i in 0..<25 {
            let echoed = try await WebSocketClient.withConnection(to: url, options: .init(deflate: deflate)) { session in
                try await session.send(Array("m\(i)".utf8))
                for await m in session.messages { return m }
                return []
            }
            #expect(echoed == Array("m\(i)".utf8))
        }
        // Reset by the client (no close frame).
        for i in 0..<15 {
            let c = try RawWebSocketClient(port: port)
            #expect(try c.handshake(extensions: deflate ? "permessage-deflate" : nil) == 101)
            try c.sendText("r\(i)")
            _ = try c.readDataOrClose()
        }
        let deadline = Date().addingTimeInterval(60)
        while live.value > 0 && Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(live.value == 0, "\(live.value) of 40 closed connections still in memory")
        await server.shutdown()
    }
}
