import BridgeArchive
import BridgeProxy
import BridgeTransport
import BridgeWebSocket
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The page is told 1014 (bad gateway), always, when its upstream fails: cannot be
/// reached, or dies after the upgrade without a close frame (a FIN, a reset, in the middle
/// of a message). Each case runs many times, several pages at once, so a race between the
/// failure and the page's close frame shows up here rather than once in a hundred full runs
/// (`BRIDGESCOPE_REPEAT` multiplies the rounds).
@Suite(.serialized)
struct ProxyBadGatewayTests {
    enum Death: CaseIterable, Sendable { case finAfterUpgrade, resetAfterUpgrade, finMidMessage, resetMidMessage }

    static var rounds: Int { Int(ProcessInfo.processInfo.environment["BRIDGESCOPE_REPEAT"] ?? "") ?? 5 }

    /// A raw upstream: upgrades every connection, then dies as `death` says.
    static func upstream(_ death: Death) throws -> (port: UInt16, stop: @Sendable () -> Void) {
        let listener = try LoopbackExchange.listen()
        let fd = listener.fd
        Thread {
            while let (conn, switching) = LoopbackExchange.acceptUpgrade(fd) {
                Thread {
                    switch death {
                    case .finAfterUpgrade, .resetAfterUpgrade:
                        LoopbackExchange.sendAll(conn, switching)
                    case .finMidMessage, .resetMidMessage:
                        // A text frame announcing 100 bytes, and 10 of them.
                        LoopbackExchange.sendAll(conn, switching + [0x81, 100] + Array(repeating: 0x61, count: 10))
                    }
                    usleep(2_000)
                    if death == .resetAfterUpgrade || death == .resetMidMessage { Self.reset(conn) } else { close(conn) }
                }.start()
            }
        }.start()
        return (listener.port, { shutdown(fd, Int32(SHUT_RDWR)); close(fd) })
    }

    /// Closes `conn` with a reset (SO_LINGER of 0) instead of a FIN.
    static func reset(_ conn: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(conn, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(conn)
    }

    /// `pages` pages at once through `proxyPort`: each sends one message and reads until
    /// the end; their close codes.
    static func pages(_ pages: Int, proxyPort: Int) async throws -> [UInt16?] {
        let url = try #require(WebSocketURL("ws://127.0.0.1:\(proxyPort)/bridge"))
        return try await bounded("the pages") {
            try await withThrowingTaskGroup(of: UInt16?.self) { group in
                for i in 0..<pages {
                    group.addTask {
                        try await WebSocketClient.withConnection(to: url) { session in
                            try? await session.send(ScriptedWebSide.request(i))
                            for await _ in session.messages {}
                            return session.closeCode?.rawValue
                        }
                    }
                }
                var codes: [UInt16?] = []
                for try await code in group { codes.append(code) }
                return codes
            }
        }
    }

    @Test func anUnreachableUpstreamIsAlways1014() async throws {
        let proxy = try await ProxyRecordingSource.start(options: ProxyOptions(listenPort: 0, upstream: WebSocketURL("ws://127.0.0.1:1/bridge")!))
        let path = temporaryPath("proxy-1014-down.bsz")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recording = BackgroundRecording(proxy, path: path)
        var codes: [UInt16?] = []
        for _ in 0..<(Self.rounds * 2) { codes += try await Self.pages(8, proxyPort: proxy.port) }
        #expect(codes.allSatisfy { $0 == 1014 }, "\(codes.map { $0.map(String.init) ?? "none" })")
        #expect(await recording.finish())
        let archive = try RecordedExchange(archive: path)
        #expect(archive.events(.error).count == codes.count)
        #expect(archive.events(.close).count == codes.count)
    }

    @Test(arguments: Death.allCases)
    func anUpstreamThatDiesIsAlways1014(_ death: Death) async throws {
        let (port, stop) = try Self.upstream(death)
        defer { stop() }
        let proxy = try await ProxyRecordingSource.start(options: ProxyOptions(
            listenPort: 0, upstream: WebSocketURL("ws://127.0.0.1:\(port)/bridge")!, deflate: false))
        let path = temporaryPath("proxy-1014-dies.bsz")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recording = BackgroundRecording(proxy, path: path)
        var codes: [UInt16?] = []
        for _ in 0..<Self.rounds { codes += try await Self.pages(4, proxyPort: proxy.port) }
        #expect(codes.allSatisfy { $0 == 1014 }, "\(death): \(codes.map { $0.map(String.init) ?? "none" })")
        #expect(await recording.finish())
        let archive = try RecordedExchange(archive: path)
        #expect(archive.events(.close).count == codes.count)
        let reasons = archive.events(.close).compactMap(\.reason)
        #expect(reasons.allSatisfy { $0.contains("upstream") }, "\(reasons)")
    }
}
