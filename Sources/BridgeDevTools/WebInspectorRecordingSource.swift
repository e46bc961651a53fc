import BridgeClock
import BridgeCapture
import BridgeArchive
import BridgeTransport
import Logging

/// `record --webkit http://HOST:PORT`: records what crosses the bridge in the pages of a
/// WebKit inspector server (WebKitGTK's `WEBKIT_INSPECTOR_HTTP_SERVER`,
/// `bridgescope-webkit --inspector`, tried; an iOS WKWebView through ios_webkit_debug_proxy,
/// read in its source, not tried),
/// over WebKit's inspector protocol (docs/CDP.md, "WebKit").
///
/// A thin driver: reads the page list (``WebInspectorEndpoint``) now and every second,
/// opens one WebSocket (``WebSocketClient``) per matching page, one
/// ``WebInspectorSession`` each, and performs their actions on the recording thread.
/// The endpoint is checked in `init`, so a wrong one is reported before an archive exists.
package final class WebInspectorRecordingSource: RecordingSource {
    /// Options of a WebKit recording.
    package struct Options: Sendable {
        package var endpoint: WebInspectorEndpoint
        /// Only pages whose URL (as the page list shows it) contains this.
        package var targetFilter: String?
        package var duration: Double?
        package var maxMessages: Int?
        /// The tap's JavaScript source (tools/taps/js/bridge-tap.js).
        package var tapSource: String

        package init(endpoint: WebInspectorEndpoint, targetFilter: String? = nil, duration: Double? = nil,
                     maxMessages: Int? = nil, tapSource: String) {
            self.endpoint = endpoint
            self.targetFilter = targetFilter
            self.duration = duration
            self.maxMessages = maxMessages
            self.tapSource = tapSource
        }
    }

    package let options: Options
    /// Why recording stopped.
    package private(set) var stopReason = ""
    /// `webkit:<endpoint>`.
    package var sourceDescription: String { "webkit:\(options.endpoint)" }
    /// No capture filter.
    package var filter: String? { nil }

    private let prefix: String
    private let inbox = CDPInbox()
    private var sessions: [Int: WebInspectorSession] = [:]
    private var outboxes: [Int: AsyncStream<[UInt8]>.Continuation] = [:]
    private var tasks: [Int: Task<Void, Never>] = [:]
    private var socketChannels: [String: Int] = [:]
    /// Pages left unrecorded past ``maxPages`` (each reported once).
    private var skippedPages: Set<String> = []
    private var closedConnections = 0
    private var initialPages: [WebInspectorPageList.Page]
    private let logger: Logger

    /// Checks the endpoint lists a page to record. Throws ``CaptureError`` (kind `webkit`).
    package init(options: Options, logger: Logger = Logger(label: "bridgescope.webkit")) throws(CaptureError) {
        self.options = options
        self.logger = logger
        let pages = try options.endpoint.pages().filter { Self.matches($0, options.targetFilter) }
        guard !pages.isEmpty else {
            throw CaptureError(.webkit, "no inspectable page" + (options.targetFilter.map { " whose URL contains \"\($0)\"" } ?? "")
                + " at \(options.endpoint): \(WebInspectorEndpoint.advice)")
        }
        initialPages = pages
        var random = SystemRandomNumberGenerator()
        prefix = "__bridgescope_tap_" + String(random.next(), radix: 36)
    }

    deinit { for task in tasks.values { task.cancel() } }

    static func matches(_ page: WebInspectorPageList.Page, _ filter: String?) -> Bool {
        filter.map { page.url.contains($0) } ?? true
    }

    /// Records until told to stop, a stop condition holds, or the inspector goes away.
    package func record(into writer: ArchiveWriter, control: RecordingControl) throws(ArchiveError) {
        let started = control.clock.now()
        var lastReport: UInt64 = 0
        var lastPoll = started
        var messages = 0
        for page in initialPages { try openOrSkip(page, writer: writer) }
        initialPages = []
        defer { closeAll() }
        loop: while true {
            if control.shouldStop() { stopReason = "stopped"; break }
            let now = control.clock.now()
            if let d = options.duration, Double(now &- started) >= d * 1e9 { stopReason = "duration reached"; break }
            if now &- lastPoll >= 1_000_000_000 {
                lastPoll = now
                var fresh: [WebInspectorPageList.Page] = []
                do {
                    fresh = try options.endpoint.pages().filter {
                        Self.matches($0, options.targetFilter) && socketChannels[$0.socketPath] == nil
                    }
                } catch where error.message.hasPrefix("cannot connect") {
                    // The app is gone though a socket did not say so (seen once in 10 runs: a
                    // shell that had exited, its page socket never closed).
                    let wall = WallClock.now.nanoseconds
                    for channel in sessions.keys.sorted() {
                        let actions = sessions[channel]!.closed(reason: "inspector gone", now: wall)
                        _ = try perform(actions, channel: channel, writer: writer, messages: &messages)
                        closedConnections += sessions.removeValue(forKey: channel)?.connectionsOpened ?? 0
                    }
                    try writer.append(ArchiveEvent(time: wall, kind: .error,
                                                   reason: "WebKit's inspector at \(options.endpoint) went away: \(error.message)"))
                    stopReason = "inspector gone"
                    break loop
                } catch {
                    logger.info("the page list of \(options.endpoint) could not be read: \(error)")
                }
                for page in fresh { try openOrSkip(page, writer: writer) }
            }
            var timeout = 0.1
            if let deadline = writer.flushDeadline { timeout = min(timeout, deadline > now ? Double(deadline - now) / 1e9 : 0) }
            for item in inbox.take(timeout: timeout) {
                let wall = WallClock.now.nanoseconds
                var actions: [WebInspectorSession.Action] = []
                switch item {
                case .opened(let channel, _):
                    actions = sessions[channel]?.opened(now: wall) ?? []
                case .message(let channel, let bytes):
                    logger.debug("inspector \(channel) <- \(String(decoding: bytes.prefix(300), as: UTF8.self))")
                    actions = sessions[channel]?.receive(bytes, now: wall) ?? []
                case .closed(let channel, let reason):
                    outboxes.removeValue(forKey: channel)?.finish()
                    tasks.removeValue(forKey: channel)
                    actions = sessions[channel]?.closed(reason: "inspector connection closed (\(reason))", now: wall) ?? []
                    if let session = sessions.removeValue(forKey: channel) { closedConnections += session.connectionsOpened }
                    if (try? options.endpoint.pages()) == nil {
                        _ = try perform(actions, channel: channel, writer: writer, messages: &messages)
                        try writer.append(ArchiveEvent(time: wall, kind: .error,
                                                       reason: "WebKit's inspector at \(options.endpoint) went away: \(reason)"))
                        stopReason = "inspector gone"
                        break loop
                    }
                }
                if try perform(actions, channel: item.channel, writer: writer, messages: &messages) { stopReason = "count reached"; break loop }
            }
            // A socket that is the page itself is known by time passing (WebInspectorSession.tick).
            let wall = WallClock.now.nanoseconds
            for channel in sessions.keys.sorted() {
                guard let actions = sessions[channel]?.tick(now: wall), !actions.isEmpty else { continue }
                if try perform(actions, channel: channel, writer: writer, messages: &messages) { stopReason = "count reached"; break loop }
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
            if case .message(let channel, let bytes) = item, var session = sessions[channel] {
                let actions = session.receive(bytes, now: WallClock.now.nanoseconds)
                sessions[channel] = session
                _ = try perform(actions, channel: channel, writer: writer, messages: &messages)
            }
        }
        for channel in sessions.keys.sorted() {
            let actions = sessions[channel]!.finish(now: WallClock.now.nanoseconds)
            _ = try perform(actions, channel: channel, writer: writer, messages: &messages)
        }
        control.progress?(snapshot(writer, elapsed: control.clock.now() &- started))
    }

    /// Performs actions; true when the message count was reached.
    private func perform(_ actions: [WebInspectorSession.Action], channel: Int, writer: ArchiveWriter,
                         messages: inout Int) throws(ArchiveError) -> Bool {
        for action in actions {
            switch action {
            case .send(let bytes):
                logger.debug("inspector \(channel) -> \(String(decoding: bytes.prefix(200), as: UTF8.self))")
                outboxes[channel]?.yield(bytes)
            case .record(let t, let d, let c, let payload):
                if let max = options.maxMessages, messages >= max { continue }
                try writer.append(time: t, direction: d, connection: c, payload: payload)
                messages += 1
            case .event(let e):
                try writer.append(e)
            case .note(let text):
                logger.warning("\(text)")
            }
        }
        if let max = options.maxMessages, messages >= max { return true }
        return false
    }

    private func snapshot(_ writer: ArchiveWriter, elapsed: UInt64) -> RecordingProgress {
        let opened = closedConnections + sessions.values.reduce(0) { $0 + $1.connectionsOpened }
        return RecordingProgress(messages: writer.counts.records, bytes: writer.counts.bytes, connections: opened,
                                 drops: writer.counts.drops, errors: writer.counts.errors, elapsed: elapsed)
    }

    /// Page sockets recorded at once: each costs a descriptor and a session, so an app
    /// opening pages without end cannot exhaust the recorder (docs/CDP.md). The lower of
    /// ``CDPSession/defaultMaxTargets`` (256) and what the descriptor limit allows.
    static var maxPages: Int {
        min(CDPSession.defaultMaxTargets, AdmissionLimits.derivedCap(perConnection: 1))
    }

    /// Opens the page's socket, or, past ``maxPages``, leaves it unrecorded with one
    /// `drop` event per page (it is opened later if a socket closes meanwhile).
    private func openOrSkip(_ page: WebInspectorPageList.Page, writer: ArchiveWriter) throws(ArchiveError) {
        guard sessions.count >= Self.maxPages else { return open(page) }
        guard skippedPages.insert(page.socketPath).inserted else { return }
        try writer.append(ArchiveEvent(time: WallClock.now.nanoseconds, kind: .drop, count: 1,
                                       reason: "page \(page.url.isEmpty ? page.socketPath : page.url) not recorded: "
                                           + "\(Self.maxPages) pages are recorded already (the recorder's cap, docs/CDP.md)"))
    }

    private func open(_ page: WebInspectorPageList.Page) {
        guard let url = options.endpoint.socket(page) else { return }
        let channel = socketChannels.count + 1
        socketChannels[page.socketPath] = channel
        sessions[channel] = WebInspectorSession(page: channel, pageURL: page.url.isEmpty ? page.socketPath : page.url,
                                                tapSource: options.tapSource, prefix: prefix)
        let (outbound, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        outboxes[channel] = continuation
        tasks[channel] = inbox.connect(url, channel: channel, kind: .browser, maxMessageBytes: WebInspectorTargets.defaultMaxMessageBytes,
                                       outbound: outbound, closedReason: "closed by WebKit", logger: logger)
    }

    private func closeAll() {
        for c in outboxes.values { c.finish() }
        outboxes.removeAll()
        for task in tasks.values { task.cancel() }
        tasks.removeAll()
    }
}

extension CDPInbox.Item {
    /// The channel an item is about.
    var channel: Int {
        switch self {
        case .opened(let c, _), .message(let c, _), .closed(let c, _): return c
        }
    }
}
