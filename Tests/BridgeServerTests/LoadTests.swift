import BridgeServer
import BridgeTransport
import Foundation
import Testing

@Suite(.serialized)
struct LoadTests {
    @Test func thousandConcurrentConnections() async throws {
        try await withServer { port, server async throws in
            var clients: [RawWebSocketClient] = []
            for _ in 0..<1000 {
                let c = try RawWebSocketClient(port: port)
                #expect(try c.handshake() == 101)
                clients.append(c)
            }
            for _ in 0..<200 where server.openConnections < 1000 { try await Task.sleep(nanoseconds: 10_000_000) }
            #expect(server.openConnections == 1000)
            for (i, c) in clients.enumerated() { try c.sendText("{\"i\":\(i)}") }
            for (i, c) in clients.enumerated() { #expect(try c.readDataOrClose().text == "echo:{\"i\":\(i)}") }
        }
    }

    @Test func aClientThatStopsReadingIsDroppedOthersAreServed() async throws {
        try await withServer({ $0.maxOutboundQueuedBytes = 1 << 20 }) { port, server async throws in
            let slow = try RawWebSocketClient(port: port)
            try slow.handshake()
            let big = "{\"x\":\"" + String(repeating: "y", count: 60_000) + "\"}"
            // Keep sending, never reading: echoes pile up until the server gives up on us.
            var sent = 0
            while sent < 2000 {
                do { try slow.sendText(big) } catch { break }
                sent += 1
                if sent % 50 == 0 {
                    let healthy = try RawWebSocketClient(port: port)
                    try healthy.handshake()
                    try healthy.sendText("{}")
                    #expect(try healthy.readDataOrClose().text == "echo:{}")
                }
                if sent > 100 && server.openConnections == 0 { break }
            }
            #expect(sent < 2000, "the server never pushed back on a client that does not read")
            #expect(slow.waitForEOF(), "the slow client was not dropped")
        }
    }
}
