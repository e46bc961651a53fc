import Foundation
import BridgeTransport
import BridgeServer
import Testing

@Suite(.serialized)
struct ClientTests {
    @Test(arguments: [true, false])
    func roundTripsWithAndWithoutDeflate(_ deflate: Bool) async throws {
        try await withServer { port, _ async throws in
            let url = try #require(WebSocketURL("ws://127.0.0.1:\(port)/bridge"))
            let replies = try await WebSocketClient.withConnection(to: url, options: .init(deflate: deflate)) { session in
                var got: [String] = []
                var it = session.messages.makeAsyncIterator()
                for i in 0..<5 {
                    let big = String(repeating: "x", count: i * 10_000)
                    try await session.send(#"{"i":\#(i),"s":"\#(big)"}"#)
                    if let m = await it.next() { got.append(String(decoding: m.prefix(16), as: UTF8.self)) }
                }
                return got
            }
            #expect(replies == (0..<5).map { #"echo:{"i":\#($0),"s":"#.prefix(16).description })
        }
    }

    @Test func hostDownAndRefusedUpgradeAreClearErrors() async throws {
        let down = try #require(WebSocketURL("ws://127.0.0.1:1/bridge"))
        await #expect(throws: WebSocketClientError.self) {
            try await WebSocketClient.withConnection(to: down) { _ in 0 }
        }
        try await withServer { port, _ async throws in
            let wrongPath = try #require(WebSocketURL("ws://127.0.0.1:\(port)/nope"))
            await #expect(throws: WebSocketClientError.self) {
                try await WebSocketClient.withConnection(to: wrongPath) { _ in 0 }
            }
        }
    }

    @Test func urlParsing() {
        #expect(WebSocketURL("ws://127.0.0.1:8787/bridge")?.port == 8787)
        #expect(WebSocketURL("ws://localhost")?.path == "/")
        #expect(WebSocketURL("ws://[::1]:9/x")?.host == "::1")
        #expect(WebSocketURL("http://x") == nil)
        #expect(WebSocketURL("ws://x:0/") == nil)
    }

    @Test func aHostThatNeverAnswersTheUpgradeIsAClearErrorWithinTheConnectTimeout() async throws {
        // Listens (the kernel accepts) but never reads or answers.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        listen(fd, 8)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        let url = try #require(WebSocketURL("ws://127.0.0.1:\(UInt16(bigEndian: addr.sin_port))/bridge"))
        let start = ContinuousClock.now
        await #expect(throws: WebSocketClientError.self) {
            try await WebSocketClient.withConnection(to: url, options: .init(connectTimeout: 0.5)) { _ in 0 }
        }
        // Not forever (a hang guard, not a timing target: a starved full run took 5.6 s for the 0.5 s timeout).
        #expect(ContinuousClock.now - start < .seconds(120))
    }
}
