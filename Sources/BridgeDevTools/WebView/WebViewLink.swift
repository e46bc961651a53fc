import BridgeArchive
import BridgeCapture
import BridgeClock
import BridgeJSON
import BridgeTransport
import Logging
import Synchronization

/// One page of a WebView, driven from outside through its debugging door
/// (docs/WEBVIEW-TARGETS.md): messages posted through the page's own bridge as a journey
/// would post them, and the host's answers as the tap in the page sees them arrive at
/// `window.GBGBridge.receive`. What `replay` and `fuzz` use for `cdp:` and `webkit:` targets.
///
/// A thin driver: the framing is ``WebViewChannel``, the page's side is
/// ``WebViewScript`` and the tap (tools/taps/js/bridge-tap.js), whose lines come out
/// through a DevTools binding or WebKit's console (``WebInspectorTapScript``), never one
/// round trip per message.
package final class WebViewLink: PageBridge {
    /// The target as named.
    package let spec: WebViewSpec
    /// What the host sent, as the page received it, in order; finishes when the link fails or closes.
    package let answers: AsyncStream<[UInt8]>
    let answersIn: AsyncStream<[UInt8]>.Continuation
    let outbound: AsyncStream<[UInt8]>.Continuation
    let outboundStream: AsyncStream<[UInt8]>
    let state: Mutex<State>
    let connection = Mutex<Task<Void, Never>?>(nil)
    let tapScript: String
    let prefix: String
    let binding: String
    let logger: Logger
    /// How long one command may wait for its answer (seconds).
    let commandTimeout: Double

    struct State {
        var channel: WebViewChannel
        var waiters: [Int: AsyncThrowingStream<JSONObject, any Error>.Continuation] = [:]
        /// The socket is open.
        var connected = false
        var failure: String?
        var shape: WebViewScript.Shape?
        var pageURL = ""
        var documents: [String: Int] = [:]
        /// Documents whose tap has spoken, and those a reload replaced.
        var heard: Set<String> = []
        /// The document was loaded by this link and nothing was posted in it yet.
        var fresh = false
        var retired: Set<String> = []
    }

    init(spec: WebViewSpec, tapSource: String, logger: Logger, commandTimeout: Double) {
        self.spec = spec
        self.logger = logger
        self.commandTimeout = commandTimeout
        var random = SystemRandomNumberGenerator()
        let token = String(random.next(), radix: 36)
        prefix = "__bridgescope_webview_" + token
        binding = "__bridgescopeWebView_" + token
        switch spec.kind {
        case .cdp: tapScript = "(function (tapConfig) {\n" + tapSource + "\n})({binding: \"" + binding + "\"});"
        case .webkit: tapScript = WebInspectorTapScript.script(tapSource: tapSource, prefix: prefix)
        }
        state = Mutex(State(channel: WebViewChannel(kind: spec.kind)))
        (answers, answersIn) = AsyncStream.makeStream(of: [UInt8].self)
        (outboundStream, outbound) = AsyncStream.makeStream(of: [UInt8].self)
    }

    deinit { close() }

    /// The bridge's shape in the page (known once open).
    package var shape: String { state.withLock { $0.shape?.rawValue ?? "unknown" } }
    /// The page's URL as the link uses it.
    package var pageURL: String { state.withLock { $0.pageURL } }
    /// Whether the current document was loaded by this link and nothing was posted in it.
    package var documentIsFresh: Bool { state.withLock { $0.fresh } }
    /// WebKit's page target the link drives now (a navigation to another process changes it); nil for DevTools.
    package var pageTarget: String? { state.withLock { spec.kind == .webkit ? $0.channel.target : nil } }
    /// Why the link failed (the page crashed, the inspector went away), if it did.
    package var failure: String? { state.withLock { $0.failure } }

    /// Closes the socket; the answers stream finishes.
    package func close() {
        outbound.finish()
        connection.withLock { $0?.cancel() }
        fail("the link was closed")
    }

    // MARK: the socket

    func connect(_ url: WebSocketURL) {
        let task = Task.detached { [self] in
            let options = WebSocketClientOptions(deflate: false, origin: nil, maxMessageBytes: CDPLimits.maxMessageBytes, connectTimeout: 5)
            do {
                try await WebSocketClient.withConnection(to: url, options: options) { ws in
                    self.opened()
                    await withTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await bytes in self.outboundStream {
                                do { try await ws.send(bytes) } catch { return }
                            }
                        }
                        for await message in ws.messages { self.handle(message) }
                        group.cancelAll()
                    }
                }
                fail("the \(spec.kind == .cdp ? "DevTools" : "inspector") connection to \(spec.endpoint) closed")
            } catch {
                fail("cannot reach the page at \(url): \(error)")
            }
        }
        connection.withLock { $0 = task }
    }

    func opened() {
        state.withLock { s in
            s.connected = true
            s.channel.opened(now: WallClock.now.nanoseconds)
            for bytes in s.channel.takeSends() { outbound.yield(bytes) }
        }
    }

    /// Time passed: a WebKit socket may now be known to be the page itself.
    func tick() {
        state.withLock { s in _ = s.channel.tick(now: WallClock.now.nanoseconds) }
    }

    /// Fails every waiter and ends the answers (the first reason wins).
    func fail(_ why: String) {
        let waiters = state.withLock { s -> [AsyncThrowingStream<JSONObject, any Error>.Continuation] in
            if s.failure == nil { s.failure = why }
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        let error = CaptureError(spec.kind == .cdp ? .cdp : .webkit, state.withLock { $0.failure } ?? why)
        for w in waiters { w.finish(throwing: error) }
        answersIn.finish()
    }

    /// One socket message.
    func handle(_ bytes: [UInt8]) {
        let incoming = state.withLock { s in
            let incoming = s.channel.receive(bytes)
            // Arming a new process's target: sent at once, in order with the commands.
            for bytes in s.channel.takeSends() { outbound.yield(bytes) }
            return incoming
        }
        switch incoming {
        case .answer(let id, let result, let error):
            guard let w = state.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
            if let error {
                w.finish(throwing: CaptureError(spec.kind == .cdp ? .cdp : .webkit, error))
            } else {
                w.yield(result ?? JSONObject())
                w.finish()
            }
        case .event(let method, let params):
            event(method, params)
        case .ready:
            break
        case .abandoned(let ids, let why):
            let waiters = state.withLock { s in ids.compactMap { s.waiters.removeValue(forKey: $0) } }
            for w in waiters { w.finish(throwing: CaptureError(spec.kind == .cdp ? .cdp : .webkit, why)) }
        case .gone(let why):
            fail(why)
        case .malformed(let why):
            logger.debug("webview link: \(why)")
        case .ignored:
            break
        }
    }
}
