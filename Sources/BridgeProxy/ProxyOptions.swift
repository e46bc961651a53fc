import BridgeCapture
import BridgeTransport

/// Settings of the recording proxy (`bridgescope record --proxy HOST:PORT --upstream URL`).
public struct ProxyOptions: Sendable {
    /// Address the proxy listens on. Default `127.0.0.1` (loopback only).
    public var listenHost: String
    /// Port the proxy listens on; 0 picks a free one. Default 8788.
    public var listenPort: Int
    /// The host the pages really talk to, `ws://host:port/path` (TLS is not supported).
    public var upstream: WebSocketURL
    /// Page origins allowed to connect (exact `scheme://host[:port]`); empty: loopback
    /// origins only, as the reference host. Requests without `Origin` are allowed.
    public var allowedOrigins: [String]
    /// Negotiate permessage-deflate with the page and offer it upstream. Default true.
    public var deflate: Bool
    /// Largest message in either direction, in bytes. Default 16 MiB (PROTOCOL.md §6).
    public var maxMessageBytes: Int
    /// Folder served under `/journeys/` (and its `bridge.js` at `/bridge.js`), so pages
    /// loaded from the proxy talk to it without a `?ws=` parameter. Nil: none.
    public var journeysDirectory: String?
    /// Stop after this many messages (`--count`); nil for no limit.
    public var maxMessages: Int?
    /// Stop after this many seconds (`--duration`); nil for no limit.
    public var duration: Double?
    /// Limits on what waits to be written.
    public var limits: ProxyLimits
    /// Page connections served at once (`--max-connections`); nil: derived from the
    /// descriptor limit at two descriptors a page (its socket and its upstream),
    /// ``ProxyOptions/derivedMaxConnections`` (docs/SECURITY.md, "Connections").
    public var maxConnections: Int?

    /// Descriptors one page connection costs the proxy: its own and its upstream's.
    package static let descriptorsPerConnection = 2

    /// The page-connection cap the process's descriptor limit allows now.
    package static var derivedMaxConnections: Int {
        AdmissionLimits.derivedCap(perConnection: descriptorsPerConnection)
    }

    /// Creates options; everything but the upstream has the documented default.
    public init(listenHost: String = "127.0.0.1", listenPort: Int = 8788, upstream: WebSocketURL,
                allowedOrigins: [String] = [], deflate: Bool = true, maxMessageBytes: Int = 16 << 20,
                journeysDirectory: String? = nil, maxMessages: Int? = nil, duration: Double? = nil,
                limits: ProxyLimits = .init()) {
        self.listenHost = listenHost
        self.listenPort = listenPort
        self.upstream = upstream
        self.allowedOrigins = allowedOrigins
        self.deflate = deflate
        self.maxMessageBytes = maxMessageBytes
        self.journeysDirectory = journeysDirectory
        self.maxMessages = maxMessages
        self.duration = duration
        self.limits = limits
    }

    /// `host:port` as given (IPv6 in brackets).
    public var listenAddress: String {
        (listenHost.contains(":") ? "[\(listenHost)]" : listenHost) + ":\(listenPort)"
    }
}

/// Bounds of the recording proxy.
public struct ProxyLimits: Sendable, Hashable {
    /// Message bytes waiting for the archive writer. Past it, messages are still relayed
    /// but not recorded, and a `drop` event counts them: the proxy never stalls the
    /// session for the recorder. Default 64 MiB.
    var maxQueuedBytes: Int
    /// Seconds open connections get to close at the end of a recording. Default 2.
    var shutdownGrace: Double
    /// Seconds to connect to the upstream and complete its WebSocket upgrade; past it the
    /// page is closed with 1014 and the archive gets an `error` event saying which step
    /// did not finish. Default 5.
    public var upstreamTimeout: Double
    /// Bytes the proxy may hold across connections (frames, messages, inflation, send
    /// queues both ways), as ``WebSocketServerConfiguration/memoryBudget``. Default 256 MiB.
    public var memoryBudget: Int
    /// Seconds a frame or fragmented message may take to arrive, from either side, as
    /// ``WebSocketServerConfiguration/messageTimeout``. Default 15.
    public var messageTimeout: Double
    /// Bytes a second either side may deliver on average (burst: one maximum message), as
    /// ``WebSocketServerConfiguration/maxInboundBytesPerSecond``: a page past it is paced,
    /// an upstream is closed. Default 4 MiB.
    public var maxInboundBytesPerSecond: Int
    /// How many times its compressed size a deflated message over 1 MiB may inflate to,
    /// from either side, as ``WebSocketServerConfiguration/maxInflationRatio``. Default 100.
    public var maxInflationRatio: Int

    /// Creates limits.
    public init(maxQueuedBytes: Int = 64 << 20, shutdownGrace: Double = 2, upstreamTimeout: Double = 5,
                memoryBudget: Int = 256 << 20, messageTimeout: Double = 15, maxInboundBytesPerSecond: Int = 4 << 20,
                maxInflationRatio: Int = 100) {
        self.maxQueuedBytes = maxQueuedBytes
        self.shutdownGrace = shutdownGrace
        self.upstreamTimeout = upstreamTimeout
        self.memoryBudget = memoryBudget
        self.messageTimeout = messageTimeout
        self.maxInboundBytesPerSecond = maxInboundBytesPerSecond
        self.maxInflationRatio = maxInflationRatio
    }
}
