import BridgeArchive
import BridgeProxy
import BridgeTransport
import BridgeWebSocket
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The proxy's upstream side is under the page side's limits (docs/SECURITY.md, "The
/// proxy's upstream side"): an upstream that floods, drips a frame, sends a deflate bomb or
/// announces more than the memory budget ends its page's connection with 1014 within a
/// bounded time, an `error` event says which limit, and another page through the same
/// proxy is still relayed.
@Suite(.serialized)
struct ProxyUpstreamLimitTests {
    enum Hostile: Sendable { case flood, drip, bomb, overBudget }

    /// The Origin the hostile page sends (the raw upstream sees it forwarded and
    /// misbehaves); the good page sends none and gets an echo upstream.
    static let hostileOrigin = "http://127.0.0.1:6666"

    /// A raw upstream: echoes text messages back to connections without an Origin, and
    /// misbehaves as `hostile` says toward the hostile page's.
    static func upstream(_ hostile: Hostile) throws -> (port: UInt16, stop: @Sendable () -> Void) {
        let listener = try LoopbackExchange.listen()
        let fd = listener.fd
        Thread {
            while true {
                let conn = accept(fd, nil, nil)
                guard conn >= 0 else { return }
                Thread { Self.serve(conn, hostile) }.start()
            }
        }.start()
        return (listener.port, { shutdown(fd, Int32(SHUT_RDWR)); close(fd) })
    }

    private static func serve(_ conn: Int32, _ hostile: Hostile) {
        defer { close(conn) }
        var buffer: [UInt8] = []
        guard let request = readRequest(conn, &buffer) else { return }
        let key = request.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { String($0.dropFirst(18)).trimmingCharacters(in: .whitespaces) } ?? ""
        let isHostile = request.contains(hostileOrigin)
        var head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(SHA1.webSocketAccept(key: key))\r\n"
        if isHostile && hostile == .bomb { head += "Sec-WebSocket-Extensions: \(DeflateAgreement().responseHeader)\r\n" }
        LoopbackExchange.sendAll(conn, Array((head + "\r\n").utf8))
        guard isHostile else { return echo(conn, buffer) }
        switch hostile {
        case .flood:
            let frame = WebSocketFrameHeader.encode(opcode: .text, payload: Array(("\"" + String(repeating: "f", count: 1022) + "\"").utf8))
            var burst: [UInt8] = []
            for _ in 0..<64 { burst += frame }
            while send(conn, burst, burst.count, Int32(MSG_NOSIGNAL)) > 0 {}
        case .drip:
            // A text frame announcing 4096 bytes, then one byte every 100 ms.
            LoopbackExchange.sendAll(conn, [0x81, 126, 0x10, 0x00])
            while send(conn, [0x61], 1, Int32(MSG_NOSIGNAL)) > 0 { usleep(100_000) }
        case .bomb:
            // 8 MiB of spaces deflate to a few KiB: far over the ratio of 100.
            guard let codec = try? PerMessageDeflate(agreement: DeflateAgreement(), maxMessageBytes: 1 << 24, isServer: true),
                  let payload = try? codec.deflate(Array(repeating: 0x20, count: 8 << 20)) else { return }
            LoopbackExchange.sendAll(conn, WebSocketFrameHeader.encode(rsv1: true, opcode: .text, payload: payload))
            LoopbackExchange.drain(conn)
        case .overBudget:
            // A text frame announcing 8 MiB (under the message limit, over the budget), and a start.
            LoopbackExchange.sendAll(conn, [0x81, 127, 0, 0, 0, 0, 0, 0x80, 0, 0] + Array(repeating: 0x61, count: 1000))
            LoopbackExchange.drain(conn)
        }
    }

    /// Echoes every text frame (unmasked) until the connection ends.
    private static func echo(_ conn: Int32, _ start: [UInt8]) {
        var parser = WebSocketFrameParser()
        parser.append(contentsOf: start)
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            while let frame = try? parser.next() {
                guard frame.header.bits.opcode == .text else { continue }
                LoopbackExchange.sendAll(conn, WebSocketFrameHeader.encode(opcode: .text, payload: frame.payload))
            }
            let n = recv(conn, &chunk, chunk.count, 0)
            if n <= 0 { return }
            parser.append(contentsOf: chunk[0..<n])
        }
    }

    /// Reads the request head; what followed it is left in `buffer`.
    private static func readRequest(_ conn: Int32, _ buffer: inout [UInt8]) -> String? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let end: [UInt8] = [13, 10, 13, 10]
        while true {
            if let r = buffer.indices.dropLast(3).first(where: { Array(buffer[$0..<($0 + 4)]) == end }) {
                let head = String(decoding: buffer[..<r], as: UTF8.self)
                buffer.removeFirst(r + 4)
                return head
            }
            let n = recv(conn, &chunk, chunk.count, 0)
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
        }
    }

    /// Runs a good page and a hostile page through one proxy; returns the hostile page's
    /// close code and seconds, and what the good page got back.
    static func run(_ hostile: Hostile, limits: ProxyLimits, maxMessageBytes: Int = 16 << 20, deflate: Bool = false,
                    path: String) async throws -> (code: UInt16?, seconds: Double, echoes: [[UInt8]]) {
        let (port, stop) = try upstream(hostile)
        defer { stop() }
        let proxy = try await ProxyRecordingSource.start(options: ProxyOptions(
            listenPort: 0, upstream: WebSocketURL("ws://127.0.0.1:\(port)/bridge")!, deflate: deflate,
            maxMessageBytes: maxMessageBytes, limits: limits))
        let recording = BackgroundRecording(proxy, path: path)
        let url = try #require(WebSocketURL("ws://127.0.0.1:\(proxy.port)/bridge"))
        let (hostileDone, hostileEnded) = AsyncStream.makeStream(of: Void.self)
        let result = try await bounded("the pages") {
            try await withThrowingTaskGroup(of: (UInt16?, Double, [[UInt8]]).self) { group in
                group.addTask {
                    try await WebSocketClient.withConnection(to: url, options: WebSocketClientOptions(deflate: false)) { session in
                        var echoes: [[UInt8]] = []
                        var it = session.messages.makeAsyncIterator()
                        try await session.send(ScriptedWebSide.request(1))
                        if let m = await it.next() { echoes.append(m) }
                        for await _ in hostileDone {}
                        try await session.send(ScriptedWebSide.request(2))
                        if let m = await it.next() { echoes.append(m) }
                        return (nil, 0, echoes)
                    }
                }
                group.addTask {
                    let start = Date()
                    defer { hostileEnded.finish() }
                    let options = WebSocketClientOptions(deflate: deflate, origin: hostileOrigin, maxMessageBytes: 32 << 20)
                    let code = try await WebSocketClient.withConnection(to: url, options: options) { session in
                        try? await session.send(ScriptedWebSide.request(9))
                        for await _ in session.messages {}
                        return session.closeCode?.rawValue
                    }
                    return (code, Date().timeIntervalSince(start), [])
                }
                var code: UInt16?, seconds = 0.0, echoes: [[UInt8]] = []
                for try await (c, s, e) in group {
                    if e.isEmpty { code = c; seconds = s } else { echoes = e }
                }
                return (code, seconds, echoes)
            }
        }
        #expect(await recording.finish())
        return result
    }

    static func check(_ r: (code: UInt16?, seconds: Double, echoes: [[UInt8]]), path: String, limit: String, within: Double) throws {
        #expect(r.code == 1014, "the hostile page closed with \(r.code.map(String.init) ?? "no close frame")")
        // A bound against a page never told, not a timing target: a starved full run took 106 s.
        #expect(r.seconds < within, "told after \(r.seconds) s")
        #expect(r.echoes == [ScriptedWebSide.request(1), ScriptedWebSide.request(2)], "the other page was not relayed")
        let archive = try RecordedExchange(archive: path)
        let errors = archive.events(.error).compactMap(\.reason)
        #expect(errors.count == 1 && errors[0].contains(limit), "\(errors)")
    }

    @Test func aFloodingUpstreamIsClosed() async throws {
        let path = temporaryPath("proxy-limit-flood.bsz")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try await Self.run(.flood, limits: ProxyLimits(maxInboundBytesPerSecond: 64 << 10), maxMessageBytes: 64 << 10, path: path)
        try Self.check(r, path: path, limit: "bytes a second", within: 600)
    }

    @Test func anUpstreamThatDripsAFrameIsClosed() async throws {
        let path = temporaryPath("proxy-limit-drip.bsz")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try await Self.run(.drip, limits: ProxyLimits(messageTimeout: 1), path: path)
        try Self.check(r, path: path, limit: "not completed within 1.0 s", within: 600)
        let archive = try RecordedExchange(archive: path)
        let told = ProxyUpstreamWaitTests.proxySeconds(archive)
        #expect(told.map { $0 >= 0.9 && $0 < 5 } == true, "the proxy told the page after \(told.map { "\($0)" } ?? "?") s")
    }

    @Test func anUpstreamDeflateBombIsClosed() async throws {
        let path = temporaryPath("proxy-limit-bomb.bsz")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try await Self.run(.bomb, limits: ProxyLimits(), deflate: true, path: path)
        try Self.check(r, path: path, limit: "inflates more than 100 times", within: 600)
    }

    @Test func anUpstreamOverTheMemoryBudgetIsClosed() async throws {
        let path = temporaryPath("proxy-limit-budget.bsz")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try await Self.run(.overBudget, limits: ProxyLimits(memoryBudget: 1 << 20), path: path)
        try Self.check(r, path: path, limit: "memory budget exhausted", within: 600)
    }

    /// `WebSocketClient` (replay, fuzzing, benchmarks) keeps the same inflation ratio.
    @Test func theClientRefusesADeflateBombToo() async throws {
        let (port, stop) = try Self.upstream(.bomb)
        defer { stop() }
        let url = try #require(WebSocketURL("ws://127.0.0.1:\(port)/bridge"))
        let (count, code) = try await bounded("the client") {
            try await WebSocketClient.withConnection(to: url, options: WebSocketClientOptions(origin: Self.hostileOrigin)) { session in
                var count = 0
                for await _ in session.messages { count += 1 }
                return (count, session.closeCode?.rawValue)
            }
        }
        #expect(count == 0)
        #expect(code == 1009)
    }
}
