import BridgeClient
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
}
