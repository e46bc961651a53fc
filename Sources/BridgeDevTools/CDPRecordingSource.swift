import BridgeClock
import BridgeCapture
import BridgeArchive
import BridgeTransport
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `record --cdp http://HOST:PORT` (and `--launch URL`): records what crosses the
/// bridge in a browser or WebView over the Chrome DevTools Protocol (docs/CDP.md).
///
/// A thin driver around ``CDPSession``: opens the DevTools WebSockets with
/// ``WebSocketClient`` (the browser's, or one per matching page on page-only endpoints,
/// polled every second for new pages), hands every message to the session on the
/// recording thread and performs its actions. Discovery happens in `init`, so an
/// endpoint that is not DevTools or refuses is reported before an archive exists.
public final class CDPRecordingSource: RecordingSource {
    /// Options of a DevTools recording.
    public struct Options: Sendable {
        /// The DevTools HTTP endpoint (ignored with ``launch``).
        public var endpoint: CDPEndpoint?
        /// `--launch URL`: start headless Chromium and open this page.
        public var launch: String?
        /// Only pages whose URL contains this.
        public var targetFilter: String?
        /// Stop after this many seconds.
        public var duration: Double?
        /// Stop after this many messages.
        public var maxMessages: Int?
        /// The tap's JavaScript source (tools/taps/js/bridge-tap.js).
        public var tapSource: String
        /// Attach to each page's own endpoint (`/json/list`), as on an Android WebView,
        /// even when the endpoint also offers the browser's.
        public var pageTargetsOnly = false

        /// Creates options.
        public init(endpoint: CDPEndpoint?, launch: String? = nil, targetFilter: String? = nil, duration: Double? = nil,
                    maxMessages: Int? = nil, tapSource: String) {
            self.endpoint = endpoint
            self.launch = launch
            self.targetFilter = targetFilter
            self.duration = duration
            self.maxMessages = maxMessages
            self.tapSource = tapSource
        }
    }

    /// The options in force.
    public let options: Options
    /// The endpoint recorded.
    public let endpoint: CDPEndpoint
    /// Why recording stopped.
    public private(set) var stopReason = ""
    /// `cdp:<endpoint>`.
    public var sourceDescription: String { "cdp:\(endpoint)" }
    /// No capture filter.
    public var filter: String? { nil }

    private let browser: WebSocketURL?
    private let launcher: ChromiumLauncher?
    private var session: CDPSession
    private let inbox = CDPInbox()
    private var outboxes: [CDPSession.Channel: AsyncStream<[UInt8]>.Continuation] = [:]
    private var tasks: [CDPSession.Channel: Task<Void, Never>] = [:]
    private var pageChannels: [String: CDPSession.Channel] = [:]
    private var nextChannel = 0
    private var navigated = false
    private let logger: Logger

    /// Finds the endpoint's browser WebSocket (or its pages), starting Chromium first
    /// with `--launch`. Throws ``CaptureError`` (kind `cdp`) naming the endpoint.
    public init(options: Options, logger: Logger = Logger(label: "bridgescope.cdp")) throws(CaptureError) {
        self.options = options
        self.logger = logger
        if options.launch != nil {
            let launcher = try ChromiumLauncher()
            self.launcher = launcher
            endpoint = launcher.endpoint
        } else {
            guard let e = options.endpoint else { throw CaptureError(.cdp, "give --cdp http://HOST:PORT or --launch URL") }
            launcher = nil
            endpoint = e
        }
        let browserSocket = try endpoint.browserWebSocket()
        browser = options.pageTargetsOnly ? nil : browserSocket
        if browser == nil { _ = try endpoint.pages() }  // a page-only endpoint must at least list its pages
        var random = SystemRandomNumberGenerator()
        let name = "__bridgescope_" + String(random.next(), radix: 36)
        session = CDPSession(tapSource: options.tapSource, bindingName: name, targetFilter: options.targetFilter)
    }

    deinit {
        for task in tasks.values { task.cancel() }
        launcher?.stop()
    }

    /// Records until told to stop, a stop condition holds, or the browser goes away.
    public func record(into writer: ArchiveWriter, control: RecordingControl) throws(ArchiveError) {
        let started = control.clock.now()
        var lastReport: UInt64 = 0
        var lastPoll: UInt64 = 0
        var messages = 0
        if let browser { open(browser, kind: .browser) }
        defer { closeAll() }
        loop: while true {
            if control.shouldStop() { stopReason = "stopped"; break }
            let now = control.clock.now()
            if let d = options.duration, Double(now &- started) >= d * 1e9 { stopReason = "duration reached"; break }
            if browser == nil && now &- lastPoll >= 1_000_000_000 {
                lastPoll = now
                pollPages()
            }
            var timeout = 0.1
            if let deadline = writer.flushDeadline { timeout = min(timeout, deadline > now ? Double(deadline - now) / 1e9 : 0) }
            for item in inbox.take(timeout: timeout) {
                let wall = WallClock.now.nanoseconds
                let actions: [CDPSession.Action]
                switch item {
                case .opened(let channel, let kind):
                    actions = session.channelOpened(channel, kind: kind, now: wall)
                case .message(let channel, let bytes):
                    logger.debug("DevTools \(channel) <- \(String(decoding: bytes.prefix(300), as: UTF8.self))")
                    actions = session.receive(channel, bytes, now: wall)
                case .closed(let channel, let reason):
                    outboxes.removeValue(forKey: channel)?.finish()
                    tasks.removeValue(forKey: channel)
                    pageChannels = pageChannels.filter { $0.value != channel }
                    actions = session.channelClosed(channel, reason: reason, now: wall)
                    if browser != nil {
                        try perform(actions, writer: writer, messages: &messages)
                        try writer.append(ArchiveEvent(time: wall, kind: .error,
                                                       reason: "the DevTools connection to \(endpoint) closed: \(reason)"))
                        stopReason = "browser gone"
                        break loop
                    }
                }
                if try perform(actions, writer: writer, messages: &messages) { stopReason = "count reached"; break loop }
            }
            try writer.flushIfDue(now: control.clock.now())
            let after = control.clock.now()
            if let progress = control.progress, after &- lastReport >= control.progressInterval {
                lastReport = after
                progress(snapshot(writer, elapsed: after &- started))
            }
        }
        // Messages already received, then close events for what is still open.
        for item in inbox.take(timeout: 0) {
            if case .message(let channel, let bytes) = item {
                _ = try perform(session.receive(channel, bytes, now: WallClock.now.nanoseconds),
                                writer: writer, messages: &messages)
            }
        }
        _ = try perform(session.finish(now: WallClock.now.nanoseconds), writer: writer, messages: &messages)
        control.progress?(snapshot(writer, elapsed: control.clock.now() &- started))
    }

    /// Performs actions; true when the message count was reached.
    @discardableResult
    private func perform(_ actions: [CDPSession.Action], writer: ArchiveWriter, messages: inout Int) throws(ArchiveError) -> Bool {
        for action in actions {
            switch action {
            case .send(let channel, let bytes):
                logger.debug("DevTools \(channel) -> \(String(decoding: bytes.prefix(200), as: UTF8.self))")
                outboxes[channel]?.yield(bytes)
            case .record(let t, let d, let c, let payload):
                if let max = options.maxMessages, messages >= max { continue }
                try writer.append(time: t, direction: d, connection: c, payload: payload)
                messages += 1
            case .event(let e):
                try writer.append(e)
            }
        }
        if let url = options.launch, !navigated, let channel = session.firstPageChannel {
            navigated = true
            outboxes[channel.0]?.yield(session.navigate(channel, to: url))
        }
        if let max = options.maxMessages, messages >= max { return true }
        return false
    }

    private func snapshot(_ writer: ArchiveWriter, elapsed: UInt64) -> RecordingProgress {
        RecordingProgress(messages: writer.counts.records, bytes: writer.counts.bytes, connections: session.connectionsOpened,
                          drops: writer.counts.drops, errors: writer.counts.errors, elapsed: elapsed)
    }

    /// Page-only endpoints: a channel per new matching page.
    private func pollPages() {
        guard let pages = try? endpoint.pages() else { return }
        for page in pages where page.type == "page" && pageChannels[page.id] == nil {
            guard let ws = page.webSocket, options.targetFilter.map({ page.url.contains($0) }) ?? true else { continue }
            pageChannels[page.id] = open(ws, kind: .page(targetId: page.id, url: page.url))
        }
    }

    @discardableResult
    private func open(_ url: WebSocketURL, kind: CDPSession.ChannelKind) -> CDPSession.Channel {
        nextChannel += 1
        let channel = nextChannel
        let (outbound, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        outboxes[channel] = continuation
        tasks[channel] = inbox.connect(url, channel: channel, kind: kind, maxMessageBytes: CDPLimits.maxMessageBytes,
                                       outbound: outbound, closedReason: "closed by the browser", logger: logger)
        return channel
    }

    private func closeAll() {
        for c in outboxes.values { c.finish() }
        outboxes.removeAll()
        for task in tasks.values { task.cancel() }
        tasks.removeAll()
        launcher?.stop()
    }
}
