import BridgeArchive
import BridgeCapture
import BridgeClient
import Foundation
import Testing

/// The recording proxy's edges: an unreachable upstream, stop conditions, a busy port.
@Suite(.serialized)
struct ProxyTests {
    @Test func anUnreachableUpstreamIsAnErrorEventAndTheMessageIsStillRecorded() async throws {
        // Port 1 on loopback: nothing listens there.
        let proxy = try await ProxyRecordingSource.start(options: ProxyOptions(listenPort: 0, upstream: WebSocketURL("ws://127.0.0.1:1/bridge")!))
        let path = temporaryPath("proxy-down.bsz")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recording = BackgroundRecording(proxy, path: path)
        let message = ScriptedWebSide.request(1)
        let code = try await WebSocketClient.withConnection(to: WebSocketURL("ws://127.0.0.1:\(proxy.port)/bridge")!) { session in
            try await session.send(message)
            for await _ in session.messages {}
            return session.closeCode?.rawValue
        }
        #expect(code == 1014)
        #expect(await recording.finish())
        let archive = try RecordedExchange(archive: path)
        #expect(archive.webToHost == [message])
        #expect(archive.events.map(\.kind) == [.open, .error, .close])
        #expect(archive.events(.error).first?.reason?.contains("ws://127.0.0.1:1/bridge") == true)
        #expect(archive.events(.close).first?.reason == "upstream failed")
        #expect(archive.trailer?.errors == 1)
    }

    @Test func countStopsTheRecordingAndDurationToo() async throws {
        let host = try await ReferenceHost()
        let proxy = try await ProxyRecordingSource.start(options: ProxyOptions(listenPort: 0, upstream: host.url, maxMessages: 5))
        let path = temporaryPath("proxy-count.bsz")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recording = BackgroundRecording(proxy, path: path)
        _ = try? await ScriptedWebSide.run(WebSocketURL("ws://127.0.0.1:\(proxy.port)/bridge")!, queries: 10)
        #expect(await recording.wait(), "--count did not stop the proxy")
        #expect(proxy.stopReason == "count reached")
        let archive = try RecordedExchange(archive: path)
        #expect(archive.webToHost.count + archive.hostToWeb.count == 5)
        #expect(archive.events(.close).count == 1, "the connection is closed and its close recorded")

        let timed = try await ProxyRecordingSource.start(options: ProxyOptions(listenPort: 0, upstream: host.url, duration: 0.3))
        let timedPath = temporaryPath("proxy-duration.bsz")
        defer { try? FileManager.default.removeItem(atPath: timedPath) }
        let idle = BackgroundRecording(timed, path: timedPath)
        #expect(await idle.wait(), "--duration did not stop an idle proxy")
        #expect(timed.stopReason == "duration reached")
        await host.stop()
    }

    @Test func aBusyPortIsReportedBeforeRecording() async throws {
        let first = try await ProxyRecordingSource.start(options: ProxyOptions(listenPort: 0, upstream: WebSocketURL("ws://127.0.0.1:1/bridge")!))
        do {
            _ = try await ProxyRecordingSource.start(options: ProxyOptions(listenPort: first.port, upstream: WebSocketURL("ws://127.0.0.1:1/bridge")!))
            Issue.record("a second proxy bound the same port")
        } catch {
            #expect(error.kind == .proxy)
            #expect(error.message.contains("127.0.0.1:\(first.port)"))
        }
        let path = temporaryPath("proxy-busy.bsz")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(await BackgroundRecording(first, path: path).finish())
    }
}
