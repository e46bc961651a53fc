import BridgeServer
import BridgeTransport
import BridgeWebSocket
import Foundation
import Testing

/// The limits of docs/SECURITY.md, each hit once: the close code, and the time it takes.
@Suite(.serialized)
struct LimitTests {
    @Test(arguments: [UInt16(999), 1004, 1005, 1006, 1015, 2999, 5000])
    func aCloseCodeNotAllowedOnTheWireIsAnswered1002(_ code: UInt16) async throws {
        try await withServer { port, _ async throws in
            let c = try RawWebSocketClient(port: port)
            try c.handshake()
            try c.sendFrame(opcode: 8, [UInt8(code >> 8), UInt8(code & 0xFF)])
            #expect(try c.readDataOrClose().closeCode == 1002)
        }
    }

    @Test(arguments: [UInt16(1000), 1001, 1011, 3000, 4999])
    func aValidCloseCodeIsEchoedNormally(_ code: UInt16) async throws {
        try await withServer { port, _ async throws in
            let c = try RawWebSocketClient(port: port)
            try c.handshake()
            try c.sendFrame(opcode: 8, [UInt8(code >> 8), UInt8(code & 0xFF)])
            #expect([1000, 1001].contains(try c.readDataOrClose().closeCode))
        }
    }

    @Test func twoOriginHeadersAreRefused() async throws {
        try await withServer { port, _ async throws in
            for (first, second) in [("http://127.0.0.1", "https://evil.example"), ("https://evil.example", "http://127.0.0.1")] {
                let c = try RawWebSocketClient(port: port)
                var req = "GET /bridge HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                req += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                req += "Origin: \(first)\r\nOrigin: \(second)\r\n\r\n"
                try c.sendRaw(Array(req.utf8))
                var head = [UInt8](repeating: 0, count: 512)
                let n = recv(c.fd, &head, head.count, 0)
                #expect(String(decoding: head[..<max(0, n)], as: UTF8.self).hasPrefix("HTTP/1.1 400"))
            }
        }
    }

    @Test func theIdleTimeoutFiresAtItsValueNotAtThePingTick() async throws {
        try await withServer({ $0.idleTimeout = 0.4; $0.pingInterval = 30 }) { port, _ async throws in
            let c = try RawWebSocketClient(port: port)
            try c.handshake()
            let start = Date()
            let frame = try c.readDataOrClose()
            let took = Date().timeIntervalSince(start)
            #expect(frame.closeCode == 1001)
            #expect(took >= 0.2 && took < 3, "closed after \(took) s (timeout 0.4 s, pings every 30 s)")
        }
    }

    @Test func aSlowDripFrameIsClosedAtTheMessageTimeout() async throws {
        try await withServer({ $0.messageTimeout = 0.5 }) { port, _ async throws in
            let c = try RawWebSocketClient(port: port)
            try c.handshake()
            // Announce 1 MiB, then drip: the frame never completes in time.
            try c.sendFrame(opcode: 1, Array(repeating: 0x61, count: 1000), announcedLength: 1 << 20)
            let start = Date()
            var code: UInt16?
            while Date().timeIntervalSince(start) < 5 {
                try? c.sendRaw([0x61])
                if let f = try? c.readDataOrClose() { code = f.closeCode; break }
            }
            #expect(code == 1008)
            #expect(Date().timeIntervalSince(start) < 3)
        }
    }

    @Test func aFragmentedMessageMustCompleteInTimeToo() async throws {
        try await withServer({ $0.messageTimeout = 0.5 }) { port, _ async throws in
            let c = try RawWebSocketClient(port: port)
            try c.handshake()
            try c.sendFrame(opcode: 1, Array("{\"a\":".utf8), fin: false)
            let start = Date()
            #expect(try c.readDataOrClose().closeCode == 1008)
            #expect(Date().timeIntervalSince(start) < 3)
        }
    }

    @Test func pastTheBudgetALargeFrameIs1013AndSmallMessagesStillPass() async throws {
        try await withServer({ $0.memoryBudget = 3 << 20 }) { port, server async throws in
            let holders = try (0..<2).map { _ in try RawWebSocketClient(port: port) }
            for h in holders {
                try h.handshake()
                try h.sendFrame(opcode: 1, Array(repeating: 0x61, count: 1000), announcedLength: 1 << 20 + 1000)
            }
            try await Task.sleep(nanoseconds: 100_000_000)
            let late = try RawWebSocketClient(port: port)
            try late.handshake()
            try late.sendFrame(opcode: 1, [0x61], announcedLength: 2 << 20)
            #expect(try late.readDataOrClose().closeCode == 1013)
            #expect(server.memoryBudget.heldBytes <= 3 << 20)
            let small = try RawWebSocketClient(port: port)
            try small.handshake()
            try small.sendText("{}")
            #expect(try small.readDataOrClose().text == "echo:{}")
        }
    }

    @Test func aStaleHolderIsEvictedWhenOthersNeedTheBudget() async throws {
        try await withServer({ $0.memoryBudget = 3 << 20 }) { port, _ async throws in
            let stale = try RawWebSocketClient(port: port)
            try stale.handshake()
            try stale.sendFrame(opcode: 1, Array(repeating: 0x61, count: 1000), announcedLength: 2 << 20)
            try await Task.sleep(nanoseconds: 1_200_000_000)  // past MemoryBudget.minimumHoldBeforeEviction
            let asker = try RawWebSocketClient(port: port)
            try asker.handshake()
            try asker.sendFrame(opcode: 1, [0x61], announcedLength: 2 << 20)
            #expect(try asker.readDataOrClose().closeCode == 1013)
            #expect(try stale.readDataOrClose().closeCode == 1013)
            // The budget is free again: the next large message goes through.
            try await Task.sleep(nanoseconds: 100_000_000)
            let next = try RawWebSocketClient(port: port)
            try next.handshake()
            let big = "\"" + String(repeating: "b", count: 2 << 20 - 100) + "\""
            try next.sendText(big)
            #expect(try next.readDataOrClose().text == "echo:" + big)
        }
    }

    @Test func aDeflatedMessageOverTheInflationRatioIs1009() async throws {
        try await withServer { port, _ async throws in
            let c = try RawWebSocketClient(port: port)
            #expect(try c.handshake(extensions: "permessage-deflate") == 101)
            let codec = try PerMessageDeflate(agreement: DeflateAgreement(), maxMessageBytes: 16 << 20, isServer: false)
            let bomb = try codec.deflate(Array(repeating: 0x61, count: 4 << 20))
            try c.sendFrame(opcode: 1, bomb, rsv1: true)
            #expect(try c.readDataOrClose().closeCode == 1009)
        }
    }

    @Test func aLargeDeflatedMessageUnderTheRatioIsInflatedInSlicesAndDelivered() async throws {
        try await withServer({ $0.inflateSliceBytes = 64 << 10 }) { port, _ async throws in
            let c = try RawWebSocketClient(port: port, receiveTimeout: 20)
            #expect(try c.handshake(extensions: "permessage-deflate") == 101)
            let codec = try PerMessageDeflate(agreement: DeflateAgreement(), maxMessageBytes: 16 << 20, isServer: false)
            var rng = SystemRandomNumberGenerator()
            let letters = [UInt8]((0..<(2 << 20)).map { _ in UInt8(97 + rng.next() % 26) })
            let text = "\"" + String(decoding: letters, as: UTF8.self) + "\""
            try c.sendFrame(opcode: 1, try codec.deflate(Array(text.utf8)), rsv1: true)
            let answer = try c.readDataOrClose()
            #expect(answer.rsv1)
            #expect(try codec.inflate(answer.payload) == Array(("echo:" + text).utf8))
        }
    }

    @Test func aPeerThatNeverReadsTheCloseFrameLosesTheSocketAfterTheGrace() async throws {
        try await withServer({ $0.maxOutboundQueuedBytes = 256 << 20; $0.maxInboundBytesPerSecond = 1 << 30 }) { port, server async throws in
            let c = try RawWebSocketClient(port: port)
            try c.handshake()
            // Echoes pile up toward a client that does not read, then a binary frame makes
            // the server close: its close frame waits behind megabytes nobody reads.
            let big = Array(("\"" + String(repeating: "q", count: 500_000) + "\"").utf8)
            let frame = HostileLoadTests.header(length: big.count) + big  // masking key 0: sent as is
            for _ in 0..<40 { try c.sendRaw(frame) }
            try c.sendFrame(opcode: 2, [1, 2, 3])
            let start = Date()
            while server.openConnections > 0 && Date().timeIntervalSince(start) < 8 {
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            #expect(server.openConnections == 0)
            let took = Date().timeIntervalSince(start)
            #expect(took < 5, "socket closed after \(took) s (grace 2 s)")
        }
    }
}
