import BridgeProxy
import BridgeTransport
import BridgeWebSocket
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing

/// An upstream that echoes, and closes (1000) when told `close`.
final class ClosingEchoConnection: BridgeConnection {
    let outbound = NIOLockedValueBox<BridgeOutbound?>(nil)
    func opened(outbound: BridgeOutbound) { self.outbound.withLockedValue { $0 = outbound } }
    func received(_ message: [UInt8]) {
        let out = outbound.withLockedValue { $0 }
        if message == Array("close".utf8) { out?.close(.normal, "asked to") } else { out?.send(message) }
    }
    func closed(code: CloseCode?) {}
}

/// Issue 42's soak: the recording proxy kept every closed page connection (103 KB each,
/// 689 MB after 30 minutes): the connection kept its upstream handler, whose callbacks
/// keep the connection. Whichever side ends first, the connection is freed.
@Suite(.serialized)
struct ProxyRetentionTests {
    @Test(arguments: [false, true])
    func closedPageConnectionsAreFreed(deflate: Bool) async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let upstream = WebSocketServer(configuration: WebSocketServerConfiguration(port: 0, idleTimeout: 900), logger: logger) { _ in
            ClosingEchoConnection()
        }
        let upstreamPort = try await upstream.start()
        let proxy = try await ProxyRecordingSource.start(options: ProxyOptions(
            listenPort: 0, upstream: WebSocketURL("ws://127.0.0.1:\(upstreamPort)/bridge")!, deflate: deflate))
        let path = temporaryPath("proxy-retention-\(deflate).bsz")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recording = BackgroundRecording(proxy, path: path)
        let page = WebSocketURL("ws://127.0.0.1:\(proxy.port)/bridge")!
        // Whatever happens, the recording thread is stopped and the upstream shut down: a
        // recording left running keeps the test process from ever exiting.
        do {
            try await pages(page, deflate: deflate)
        } catch {
            _ = await recording.finish()
            await upstream.shutdown()
            throw error
        }
        let deadline = Date().addingTimeInterval(60)
        while proxy.liveConnections > 0 && Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(proxy.liveConnections == 0, "\(proxy.liveConnections) of 30 closed page connections still in memory")
        #expect(await recording.finish())
        await upstream.shutdown()
    }

    func pages(_ page: WebSocketURL, deflate: Bool) async throws {
        for i in 0..<30 {
            // Every third one is ended by the upstream, the others by the page.
            let upstreamEnds = i % 3 == 0
            let code = try await bounded("page \(i)") {
                try await WebSocketClient.withConnection(to: page, options: .init(deflate: deflate)) { session in
                    try await session.send(Array("m\(i)".utf8))
                    for await m in session.messages where m == Array("m\(i)".utf8) { break }
                    guard upstreamEnds else { return UInt16?.none }
                    try await session.send(Array("close".utf8))
                    for await _ in session.messages {}
                    return session.closeCode?.rawValue
                }
            }
            if upstreamEnds { #expect(code == 1000, "page \(i): \(code.map(String.init) ?? "no close frame")") }
        }
    }
}
