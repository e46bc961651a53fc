import BridgeCapture
import BridgeArchive
import BridgeTransport
import BridgeWebSocket
import Logging
import NIOConcurrencyHelpers
import BridgeClock

/// The recording proxy as a source for ``ArchiveRecorder`` (`record --proxy`): for users
/// without capture privileges. Pages connect to the proxy's `ws://HOST:PORT/bridge`
/// instead of the host's; each connection is relayed to ``ProxyOptions/upstream`` by a
/// ``ProxyConnection`` and every message is recorded on the way, byte for byte as
/// received (after permessage-deflate inflation, exactly what the page or host sent).
///
/// The server is ``WebSocketServer`` (the reference host's HTTP and WebSocket machinery), so
/// the proxy also serves `/bridge.js` and `/journeys/...` from
/// ``ProxyOptions/journeysDirectory``: a journey loaded from the proxy talks to it
/// without changes. A page loaded from the upstream host talks to the proxy with
/// `?ws=ws://HOST:PORT/bridge` (tools/journey/bridge.js reads that parameter).
///
/// `init` binds the listening socket, so a port in use is reported before an archive
/// exists. Recording ends on `control.shouldStop()`, ``ProxyOptions/duration`` or
/// ``ProxyOptions/maxMessages``; open connections are then closed with 1001 and their
/// `close` events written before the source returns.
///
/// A class, not `Sendable`: one thread records.
public final class ProxyRecordingSource: RecordingSource {
    /// The options in force.
    public let options: ProxyOptions
    /// The port actually bound (useful with port 0).
    public let port: Int
    /// Why recording stopped: `stopped`, `count reached` or `duration reached`.
    public private(set) var stopReason = ""

    private let server: WebSocketServer
    private let queue: ProxyEventQueue
    private let live: LiveCount
    private let logger: Logger
    private var finished = false

    /// Page connections whose state is still in memory: open ones, and closed ones not yet
    /// freed (a moment after their close; more means closed connections are kept).
    package var liveConnections: Int { live.value }

    /// `proxy:<listen address>`.
    public var sourceDescription: String {
        "proxy:" + (options.listenHost.contains(":") ? "[\(options.listenHost)]" : options.listenHost) + ":\(port)"
    }

    /// A proxy has no capture filter.
    public var filter: String? { nil }

    /// `ws://host:port/bridge`, where pages connect.
    public var webSocketURL: String {
        "ws://" + (options.listenHost.contains(":") ? "[\(options.listenHost)]" : options.listenHost) + ":\(port)/bridge"
    }

    /// Binds and starts accepting connections, blocking the calling thread until the
    /// socket is bound (call it from a thread, not from a task on the cooperative pool;
    /// in async code use ``start(options:logger:)``). Throws ``CaptureError`` with kind
    /// ``CaptureError/Kind/proxy`` when the address cannot be bound.
    public convenience init(options: ProxyOptions, logger: Logger = Logger(label: "bridgescope.proxy")) throws(CaptureError) {
        let (server, queue, live) = Self.makeServer(options: options, logger: logger)
        let result = Self.blocking { () async -> Result<Int, CaptureError> in
            do throws(CaptureError) { return .success(try await Self.bind(server, options: options)) } catch { return .failure(error) }
        }
        self.init(options: options, port: try result.get(), server: server, queue: queue, live: live, logger: logger)
    }

    /// Binds and starts accepting connections. Throws ``CaptureError`` (kind `proxy`).
    public static func start(options: ProxyOptions, logger: Logger = Logger(label: "bridgescope.proxy")) async throws(CaptureError) -> ProxyRecordingSource {
        let (server, queue, live) = makeServer(options: options, logger: logger)
        let port = try await bind(server, options: options)
        return ProxyRecordingSource(options: options, port: port, server: server, queue: queue, live: live, logger: logger)
    }

    private init(options: ProxyOptions, port: Int, server: WebSocketServer, queue: ProxyEventQueue, live: LiveCount,
                 logger: Logger) {
        self.live = live
        self.options = options
        self.port = port
        self.server = server
        self.queue = queue
        self.logger = logger
    }

    deinit {
        if !finished {
            let server = self.server
            Task { await server.shutdown(grace: 0) }
        }
    }

    private static func makeServer(options: ProxyOptions, logger: Logger) -> (WebSocketServer, ProxyEventQueue, LiveCount) {
        let queue = ProxyEventQueue(maxQueuedBytes: options.limits.maxQueuedBytes)
        var config = WebSocketServerConfiguration(
            host: options.listenHost, port: options.listenPort, maxMessageBytes: options.maxMessageBytes,
            allowedOrigins: options.allowedOrigins, deflate: options.deflate,
            journeysDirectory: options.journeysDirectory)
        config.memoryBudget = options.limits.memoryBudget
        // The page side's limits; ProxyUpstreamHandler applies the same to the upstream side.
        config.messageTimeout = options.limits.messageTimeout
        config.maxInboundBytesPerSecond = options.limits.maxInboundBytesPerSecond
        config.maxInflationRatio = options.limits.maxInflationRatio
        config.maxConnections = options.maxConnections
        config.descriptorsPerConnection = ProxyOptions.descriptorsPerConnection
        // One budget for the page side and the upstream side together.
        let budget = MemoryBudget(limit: options.limits.memoryBudget)
        let live = LiveCount()
        let server = WebSocketServer(configuration: config, memoryBudget: budget, logger: logger) { info in
            ProxyConnection(info: info, options: options, queue: queue, budget: budget, live: live, logger: logger)
        }
        return (server, queue, live)
    }

    private static func bind(_ server: WebSocketServer, options: ProxyOptions) async throws(CaptureError) -> Int {
        do {
            return try await server.start()
        } catch {
            await server.shutdown(grace: 0)
            throw CaptureError(.proxy, "cannot listen on \(options.listenAddress): \(NetworkErrorText.describe(error)) "
                + "(is something else using the port? choose another with --proxy HOST:PORT)")
        }
    }

    /// Runs `body` on a task and waits for it on this thread.
    private static func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let done = ConditionLock<Int>(value: 0)
        let box = NIOLockedValueBox<T?>(nil)
        Task.detached {
            let r = await body()
            box.withLockedValue { $0 = r }
            done.lock()
            done.unlock(withValue: 1)
        }
        done.lock(whenValue: 1)
        done.unlock()
        return box.withLockedValue { $0! }
    }

    /// Records until told to stop (or a stop condition holds), then closes every
    /// connection and writes what they still sent. Records the proxy once.
    public func record(into writer: ArchiveWriter, control: RecordingControl) throws(ArchiveError) {
        guard !finished else { throw ArchiveError(.invalidState, "the proxy on \(sourceDescription) was already recorded") }
        let started = control.clock.now()
        var lastReport: UInt64 = 0
        var messages = 0
        defer { stop() }
        while true {
            if control.shouldStop() { stopReason = "stopped"; break }
            let now = control.clock.now()
            if let d = options.duration, Double(now &- started) >= d * 1e9 { stopReason = "duration reached"; break }
            var timeout = 0.1
            if let deadline = writer.flushDeadline { timeout = min(timeout, deadline > now ? Double(deadline - now) / 1e9 : 0) }
            let (items, dropped) = queue.take(timeout: timeout)
            if try write(items, dropped: dropped, to: writer, messages: &messages) { stopReason = "count reached"; break }
            let after = control.clock.now()
            try writer.flushIfDue(now: after)
            if let progress = control.progress, after &- lastReport >= control.progressInterval {
                lastReport = after
                progress(progressSnapshot(writer, elapsed: after &- started))
            }
        }
        stop()
        // What the connections sent while closing, and their close events.
        // An upstream still connecting gets its connect timeout (5 s) and a second more.
        let deadline = control.clock.now() &+ 6_000_000_000
        while true {
            let (items, dropped) = queue.take(timeout: 0.05)
            _ = try write(items, dropped: dropped, to: writer, messages: &messages)
            if items.isEmpty && dropped == 0 && (queue.connectionCounts.active <= 0 || control.clock.now() > deadline) { break }
        }
        control.progress?(progressSnapshot(writer, elapsed: control.clock.now() &- started))
    }

    /// Writes items; true when the message count was reached (the rest is not recorded).
    private func write(_ items: [ProxyEventQueue.Item], dropped: Int, to writer: ArchiveWriter,
                       messages: inout Int) throws(ArchiveError) -> Bool {
        for item in items {
            switch item {
            case .message(let t, let d, let c, let bytes):
                if let max = options.maxMessages, messages >= max { continue } // past --count: relayed, not recorded
                try writer.append(time: t, direction: d, connection: c, payload: bytes)
                messages += 1
            case .event(let e):
                try writer.append(e)
            }
        }
        if dropped > 0 {
            try writer.append(ArchiveEvent(time: WallClock.now.nanoseconds, kind: .drop, count: dropped,
                                           reason: "\(dropped) message(s) relayed but not recorded: more than "
                                               + "\(options.limits.maxQueuedBytes) bytes waited for the archive"))
        }
        if let max = options.maxMessages, messages >= max { return true }
        return false
    }

    private func progressSnapshot(_ writer: ArchiveWriter, elapsed: UInt64) -> RecordingProgress {
        RecordingProgress(messages: writer.counts.records, bytes: writer.counts.bytes,
                          connections: queue.connectionCounts.total, drops: writer.counts.drops,
                          errors: writer.counts.errors, elapsed: elapsed)
    }

    /// Stops accepting, closes open connections (1001) and waits for them.
    private func stop() {
        guard !finished else { return }
        finished = true
        let server = self.server
        let grace = options.limits.shutdownGrace
        Self.blocking { await server.shutdown(grace: grace) }
    }
}
