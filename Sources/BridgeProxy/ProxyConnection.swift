import BridgeCapture
import BridgeArchive
import BridgeTransport
import BridgeWebSocket
import Logging
import NIOCore
import NIOPosix

/// One page connection of the recording proxy: the server side is a ``BridgeConnection``
/// of ``WebSocketServer`` (the reference host's WebSocket machinery: origin check,
/// permessage-deflate, pings, limits); the upstream side is a ``ProxyUpstreamHandler``
/// on the same event loop, so relaying is a function call. Every message is recorded
/// when the proxy receives it (`w2h` from the page, `h2w` from upstream), then relayed
/// unchanged; `open` and `close` events delimit the connection.
///
/// Messages the page sends before the upstream connection is up wait in order. When
/// either side closes, the other is closed too; an upstream that cannot be reached,
/// refuses the upgrade, ends without a close frame (a FIN, a reset, in the middle of a
/// message) or breaks a limit (``ProxyUpstreamEnd``) becomes an `error` event and the
/// page is closed with 1014 (bad gateway).
///
/// `@unchecked Sendable`: all state is used on the page connection's event loop only
/// (``BridgeConnection`` calls arrive there, and the upstream channel lives there).
final class ProxyConnection: BridgeConnection, @unchecked Sendable {
    /// Close code sent to the page when upstream is unreachable (RFC 6455 §7.4.1: bad gateway).
    static let badGateway = CloseCode(rawValue: 1014)

    let info: ConnectionInfo
    private let options: ProxyOptions
    private let queue: ProxyEventQueue
    private let budget: MemoryBudget
    private let logger: Logger
    private var loop: EventLoop?
    private var outbound: BridgeOutbound?
    private var upstream: ProxyUpstreamHandler?
    private var pending: [[UInt8]] = []
    private var pendingBytes = 0
    private var pageClosed = false
    private var closeReason: String?
    private var recordedClose = false
    /// The upstream reported its end: it is not kept (its closures keep this connection,
    /// so keeping it after its end kept both in memory for good, issue 42's soak).
    private var upstreamEnded = false

    private let live: LiveCount

    init(info: ConnectionInfo, options: ProxyOptions, queue: ProxyEventQueue, budget: MemoryBudget, live: LiveCount, logger: Logger) {
        self.live = live
        live.add(1)
        self.info = info
        self.options = options
        self.queue = queue
        self.budget = budget
        self.logger = logger
    }

    deinit { live.add(-1) }

    func opened(outbound: BridgeOutbound) {
        queue.event(.open, connection: info.id,
                    reason: "page \(Self.address(info.remote))\(info.origin.map { " (origin \($0))" } ?? "") to \(options.upstream)")
        let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? MultiThreadedEventLoopGroup.singleton.next()
        self.loop = loop
        self.outbound = outbound
        let queue = self.queue, id = info.id
        loop.execute {
            ProxyUpstream.connect(
                to: self.options.upstream, origin: self.info.origin, deflate: self.options.deflate,
                maxMessageBytes: self.options.maxMessageBytes,
                timeout: .nanoseconds(Int64(self.options.limits.upstreamTimeout * 1e9)), on: loop,
                make: { codec in
                    ProxyUpstreamHandler(maxMessageBytes: self.options.maxMessageBytes, limits: self.options.limits,
                                         codec: codec, budget: self.budget,
                                         onMessage: { message in
                                             queue.message(.hostToWeb, connection: id, bytes: message)
                                             if !self.pageClosed { outbound.send(message) }
                                         },
                                         onClose: { end in self.upstreamClosed(end) })
                },
                done: { result in self.connected(result) })
        }
    }

    func received(_ message: [UInt8]) {
        queue.message(.webToHost, connection: info.id, bytes: message)
        onLoop {
            if let upstream = self.upstream { return upstream.send(message) }
            if self.upstreamEnded { return }   // recorded; the page is being told the end
            // Waiting for the upstream (at most ProxyLimits.upstreamTimeout): at most one
            // maximum message may wait, so the wait cannot be used to pile up memory.
            self.pendingBytes += message.count
            if self.pendingBytes > self.options.maxMessageBytes {
                self.pending = []
                self.outbound?.close(.tryAgainLater, "too much sent before the upstream answered; try again later")
                return
            }
            self.pending.append(message)
        }
    }

    func closed(code: CloseCode?) {
        onLoop {
            self.pageClosed = true
            if self.closeReason == nil { self.closeReason = "page closed" + (code.map { " (\($0.rawValue))" } ?? "") }
            if let upstream = self.upstream {
                upstream.close(code == .goingAway ? .goingAway : .normal, reason: "page closed")
            }
            // Still connecting: `connected` closes the new upstream and records the end.
        }
    }

    private func onLoop(_ body: @escaping @Sendable () -> Void) {
        guard let loop else { return body() }
        if loop.inEventLoop { body() } else { loop.execute(body) }
    }

    private func connected(_ result: Result<ProxyUpstream.Upgrade, Error>) {
        switch result {
        case .success(.upgraded(let handler)):
            if upstreamEnded { return }   // it ended before its upgrade was reported
            upstream = handler
            if pageClosed {
                handler.close(.normal, reason: "page closed")
                return
            }
            for m in pending { handler.send(m) }
            pending = []
            pendingBytes = 0
        case .success(.refused(let why)):
            guard upstream == nil, !upstreamEnded else { return } // the channel closed after an upgrade: onClose reports it
            failed("upstream \(options.upstream) \(why)", page: "upstream " + why)
        case .failure(let error as ProxyUpstream.UpgradeTimeout):
            failed("upstream \(options.upstream): \(error)", page: "upstream: \(error)")
        case .failure(let error):
            failed("upstream \(options.upstream) cannot be reached: \(NetworkErrorText.describe(error))", page: "upstream cannot be reached")
        }
    }

    /// Records an `error` event saying what happened and closes the page with 1014 and a
    /// short reason (a close frame's reason holds 123 bytes).
    private func failed(_ reason: String, page: String) {
        logger.notice("upstream failed", metadata: ["conn": "\(info.id)", "reason": "\(reason)"])
        queue.event(.error, connection: info.id, reason: reason)
        if closeReason == nil { closeReason = "upstream failed" }
        if !pageClosed { outbound?.close(Self.badGateway, page) }
        recordClose()
    }

    /// The upstream's end, told to the page (``ProxyUpstreamEnd``): its own close code
    /// when it closed properly, else 1014 with an `error` event saying what went wrong.
    ///
    /// Issue 42, the "1014 race": an upstream that died after its upgrade without a close
    /// frame (a FIN, a reset, a read error, in the middle of a message) was reported
    /// like a close (code nil, "upstream closed") and the page got 1000, not 1014; and the
    /// page-side tests' tolerance of "no close frame" dates from before `InputClosedLatch`
    /// (commit 1491aaf), when the page's client dropped a close frame read together with
    /// the 101 and the FIN (removing the latch from `WebSocketClient` makes
    /// `ProxyBadGatewayTests` hang again at once). Now every failure is a `.broke` or
    /// `.lost` and ends in `failed`: one 1014, on the page's loop, always after its 101.
    private func upstreamClosed(_ end: ProxyUpstreamEnd) {
        upstreamEnded = true
        upstream = nil
        switch end {
        case .closed(let code):
            if closeReason == nil {
                closeReason = end.description
                if !pageClosed { outbound?.close(code == .goingAway ? .goingAway : .normal, "upstream closed") }
            }
            recordClose()
        case .broke(_, let why), .lost(let why):
            guard closeReason == nil else { return recordClose() }  // the page went first: nothing to tell it
            failed("upstream \(options.upstream): \(end.description)", page: "upstream: " + why)
        case .local:
            recordClose()
        }
    }

    private func recordClose() {
        guard !recordedClose else { return }
        recordedClose = true
        queue.event(.close, connection: info.id, reason: closeReason ?? "closed")
    }

    /// `127.0.0.1:44458` from NIO's `[IPv4]127.0.0.1/127.0.0.1:44458`.
    static func address(_ remote: String) -> String {
        guard remote.hasPrefix("[IPv"), let slash = remote.firstIndex(of: "/") else { return remote }
        let rest = remote[remote.index(after: slash)...]
        guard remote.hasPrefix("[IPv6]"), let colon = rest.lastIndex(of: ":") else { return String(rest) }
        return "[\(rest[..<colon])]\(rest[colon...])"
    }
}
