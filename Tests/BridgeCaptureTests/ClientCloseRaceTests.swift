import BridgeArchive
import BridgeProxy
import BridgeTransport
import BridgeWebSocket
import Foundation
import Testing

/// `WebSocketClient` against a server that ends the connection right behind its 101
/// (what the recording proxy does when its upstream is refused at once): the page's
/// message stream ends, with the server's close code, whether the close frame and the
/// FIN come in the same segment as the 101 or just after it. Before the fix
/// (`InputClosedLatch`) the first two endings hung the page every time.
@Suite(.serialized)
struct ClientCloseRaceTests {
    enum Ending: CaseIterable { case closeFrameAndFin, finOnly, closeFrameThenFinLater }

    /// A raw server: answers the upgrade, then ends as `ending` says, and reads until the
    /// client closes.
    static func server(_ ending: Ending) throws -> UInt16 {
        let listener = try LoopbackExchange.listen()
        Thread {
            defer { close(listener.fd) }
            guard let (conn, head) = LoopbackExchange.acceptUpgrade(listener.fd) else { return }
            defer { close(conn) }
            let closeFrame = WebSocketFrameHeader.encode(opcode: .close, payload: [0x03, 0xF6] + Array("upstream".utf8))
            switch ending {
            case .closeFrameAndFin:
                LoopbackExchange.sendAll(conn, head + closeFrame)
                shutdown(conn, Int32(SHUT_WR))
            case .finOnly:
                LoopbackExchange.sendAll(conn, head)
                shutdown(conn, Int32(SHUT_WR))
            case .closeFrameThenFinLater:
                LoopbackExchange.sendAll(conn, head + closeFrame)
                usleep(2_000)
                shutdown(conn, Int32(SHUT_WR))
            }
            LoopbackExchange.drain(conn)
        }.start()
        return listener.port
    }

    @Test(arguments: Ending.allCases)
    func theStreamEndsWhenTheServerEndsRightBehindThe101(_ ending: Ending) async throws {
        for _ in 0..<10 {
            let port = try Self.server(ending)
            let url = try #require(WebSocketURL("ws://127.0.0.1:\(port)/bridge"))
            let code = try await bounded("the page (\(ending))") {
                try await WebSocketClient.withConnection(to: url, options: WebSocketClientOptions(deflate: false)) { session in
                    for await _ in session.messages {}
                    return session.closeCode?.rawValue
                }
            }
            // The close frame read with the 101 reaches the page too.
            #expect(code == (ending == .finOnly ? nil : 1014), "\(ending)")
        }
    }

    /// A FIN before the response head is complete is not held back: the upgrade fails at
    /// once with a clear error, as before the latch (not after the connect timeout). And the
    /// proxy, whose upstream pipeline would not end the upgrade on a half-closure, names
    /// the early close at once too.
    @Test func aFinBeforeTheHeadEndsFailsTheUpgradeAtOnce() async throws {
        func server() throws -> UInt16 {
            let listener = try LoopbackExchange.listen()
            Thread {
                defer { close(listener.fd) }
                let conn = accept(listener.fd, nil, nil)
                guard conn >= 0 else { return }
                defer { close(conn) }
                var chunk = [UInt8](repeating: 0, count: 4096)
                _ = recv(conn, &chunk, chunk.count, 0)
                LoopbackExchange.sendAll(conn, Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n".utf8))
                shutdown(conn, Int32(SHUT_WR))
                LoopbackExchange.drain(conn)
            }.start()
            return listener.port
        }
        let url = try #require(WebSocketURL("ws://127.0.0.1:\(try server())/bridge"))
        let start = ContinuousClock.now
        await #expect(throws: WebSocketClientError.self) {
            try await WebSocketClient.withConnection(to: url, options: WebSocketClientOptions(deflate: false, connectTimeout: 30)) { _ in 0 }
        }
        #expect(ContinuousClock.now - start < .seconds(25), "the upgrade waited for the connect timeout")

        let upstream = try #require(WebSocketURL("ws://127.0.0.1:\(try server())/bridge"))
        let proxy = try await ProxyRecordingSource.start(options: ProxyOptions(listenPort: 0, upstream: upstream, deflate: false,
                                                                              limits: ProxyLimits(upstreamTimeout: 30)))
        let path = temporaryPath("proxy-early-fin.bsz")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recording = BackgroundRecording(proxy, path: path)
        let page = try #require(WebSocketURL("ws://127.0.0.1:\(proxy.port)/bridge"))
        _ = try await bounded("the page") {
            try await WebSocketClient.withConnection(to: page) { session in
                for await _ in session.messages {}
                return 0
            }
        }
        #expect(await recording.finish())
        let archive = try RecordedExchange(archive: path)
        let reason = archive.events(.error).first?.reason ?? ""
        #expect(reason.contains("closed the connection before completing the WebSocket upgrade"), "\(reason)")
        #expect(ProxyUpstreamWaitTests.proxySeconds(archive).map { $0 < 25 } == true, "the proxy waited for its upstream timeout")
    }
}
