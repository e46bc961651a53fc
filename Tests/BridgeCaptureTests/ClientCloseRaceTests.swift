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
}
