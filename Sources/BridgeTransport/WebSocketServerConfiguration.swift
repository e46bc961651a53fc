import BridgeWebSocket

/// Everything the WebSocket host server can be told. Defaults are the documented ones.
public struct WebSocketServerConfiguration: Sendable {
    /// Address to bind. Default `127.0.0.1` (loopback only); binding elsewhere must be asked for.
    public var host: String
    /// Port to bind; 0 picks a free port. Default 8787.
    public var port: Int
    /// Largest message (frame, reassembled message, or inflated message) in bytes.
    /// Default 16 MiB (PROTOCOL.md §6).
    public var maxMessageBytes: Int
    /// Allowed `Origin` values (exact `scheme://host[:port]`). Empty = loopback origins
    /// only (`http(s)://127.0.0.1`, `localhost`, `[::1]`, any port). Requests with no
    /// `Origin` (non-browser clients) are allowed.
    public var allowedOrigins: [String]
    /// Negotiate permessage-deflate when the client offers it. Default true.
    public var deflate: Bool
    /// Seconds without any frame from the client before the server closes with 1001. Default 120.
    public var idleTimeout: Double
    /// Seconds a new connection has to complete its HTTP request / upgrade. Default 10.
    public var handshakeTimeout: Double
    /// Seconds between server pings on an open WebSocket. Default 30.
    public var pingInterval: Double
    /// Bytes queued toward a client that stopped reading before it is dropped. Default 32 MiB.
    public var maxOutboundQueuedBytes: Int
    /// Folder served under `/journeys/` (`bridge.js` in it is served at `/bridge.js`).
    public var journeysDirectory: String?
    /// Bytes the whole server may hold in unfinished frames, fragmented and inflated
    /// messages and send queues, across connections (``MemoryBudget``). Past it, a
    /// connection asking for more is closed with 1013 and the largest stale holder is
    /// evicted. Default 256 MiB (docs/SECURITY.md).
    public var memoryBudget: Int = MemoryBudget.defaultLimit
    /// Seconds a frame, or a fragmented message, has to complete once its first byte
    /// arrived; past it the connection is closed with 1008. Default 15.
    public var messageTimeout: Double = 15
    /// A deflated message over 1 MiB may inflate to at most this multiple of its
    /// compressed size; past it the connection is closed with 1009. Default 100.
    public var maxInflationRatio: Int = 100
    /// Message bytes (after inflation) one connection may deliver per second, on
    /// average, with bursts of one maximum message; a faster sender is paused (its socket
    /// is not read) until it is back under the rate. Default 4 MiB/s.
    public var maxInboundBytesPerSecond: Int = 4 << 20
    /// Inflated bytes per slice: a large message is inflated in slices of this size,
    /// yielding to the event loop between them. Default 1 MiB.
    public var inflateSliceBytes: Int = 1 << 20
    /// Connections (plain HTTP and WebSocket together) served at once; past it a new one
    /// is refused with HTTP 503 unless a silent one can be evicted (docs/SECURITY.md,
    /// "Connections"). nil: derived from the descriptor limit,
    /// ``AdmissionLimits/derivedCap(perConnection:)``.
    public var maxConnections: Int?
    /// Slots one peer address (an IPv6 /64) may hold. nil: half the cap.
    public var maxConnectionsPerAddress: Int?
    /// Descriptors one admitted connection costs, for the derived cap: 1 (the recording
    /// proxy: 2, the page and its upstream).
    public var descriptorsPerConnection: Int = 1

    /// The admission limits these settings give (the derived cap read now).
    package var admissionLimits: AdmissionLimits {
        AdmissionLimits(maxConnections: maxConnections ?? AdmissionLimits.derivedCap(perConnection: descriptorsPerConnection),
                        maxPerAddress: maxConnectionsPerAddress)
    }

    /// Creates a configuration.
    public init(host: String = "127.0.0.1", port: Int = 8787, maxMessageBytes: Int = 16 << 20,
                allowedOrigins: [String] = [], deflate: Bool = true, idleTimeout: Double = 120,
                handshakeTimeout: Double = 10, pingInterval: Double = 30,
                maxOutboundQueuedBytes: Int = 32 << 20, journeysDirectory: String? = nil) {
        self.host = host
        self.port = port
        self.maxMessageBytes = maxMessageBytes
        self.allowedOrigins = allowedOrigins
        self.deflate = deflate
        self.idleTimeout = idleTimeout
        self.handshakeTimeout = handshakeTimeout
        self.pingInterval = pingInterval
        self.maxOutboundQueuedBytes = maxOutboundQueuedBytes
        self.journeysDirectory = journeysDirectory
    }
}

/// Decides whether a WebSocket handshake's `Origin` is allowed (PROTOCOL.md §6).
struct OriginPolicy: Sendable {
    /// Exact allowed origins; empty means loopback origins only.
    public var allowed: [String]

    /// Creates a policy.
    public init(allowed: [String]) {
        self.allowed = allowed.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    }

    /// Whether a handshake with this `Origin` header (nil when absent) may upgrade.
    public func allows(_ origin: String?) -> Bool {
        guard let origin else { return true }
        if allowed.isEmpty { return Self.isLoopback(origin) }
        return allowed.contains(origin)
    }

    /// `http(s)://127.x.x.x`, `localhost` or `[::1]`, with any port.
    static func isLoopback(_ origin: String) -> Bool {
        let lower = origin.lowercased()
        let rest: Substring
        if lower.hasPrefix("http://") { rest = lower.dropFirst(7) } else if lower.hasPrefix("https://") { rest = lower.dropFirst(8) } else { return false }
        var host: Substring
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return false }
            host = rest[rest.startIndex...close]
            let after = rest[rest.index(after: close)...]
            guard after.isEmpty || (after.hasPrefix(":") && after.dropFirst().allSatisfy(\.isNumber) && after.count > 1) else { return false }
        } else {
            let parts = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            if parts.count == 2 && (parts[1].isEmpty || !parts[1].allSatisfy(\.isNumber)) { return false }
        }
        if host == "localhost" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
