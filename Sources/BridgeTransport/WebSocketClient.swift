import BridgeWebSocket
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// Why a WebSocket client could not connect or stopped.
public struct WebSocketClientError: Error, Sendable, CustomStringConvertible {
    /// A sentence naming the URL and what to do.
    public var description: String
}

/// Where and how to connect.
public struct WebSocketClientOptions: Sendable {
    /// Offer permessage-deflate (default true, like a browser).
    public var deflate: Bool
    /// `Origin` header to send (nil: none, like a non-browser client).
    public var origin: String?
    /// Largest message accepted from the server (default 16 MiB).
    public var maxMessageBytes: Int
    /// Seconds to wait for the TCP connection and upgrade (default 5).
    public var connectTimeout: Double
    /// How many times its compressed size a deflated message over 1 MiB may inflate to
    /// (default 100, as the server's ``WebSocketServerConfiguration/maxInflationRatio``);
    /// past it the session ends with 1009.
    public var maxInflationRatio: Int = 100

    /// Creates options.
    public init(deflate: Bool = true, origin: String? = nil, maxMessageBytes: Int = 16 << 20, connectTimeout: Double = 5) {
        self.deflate = deflate
        self.origin = origin
        self.maxMessageBytes = maxMessageBytes
        self.connectTimeout = connectTimeout
    }
}

/// A parsed `ws://host:port/path` URL (TLS is not supported: hosts under test run on loopback).
public struct WebSocketURL: Sendable, Hashable, CustomStringConvertible {
    /// Host name or address.
    public var host: String
    /// Port (default 80).
    public var port: Int
    /// Path and query (default `/`).
    public var path: String

    /// Parses `ws://host[:port][/path]`; nil for anything else.
    public init?(_ text: String) {
        guard text.hasPrefix("ws://") else { return nil }
        let rest = text.dropFirst(5)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        path = slash == rest.endIndex ? "/" : String(rest[slash...])
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            guard let p = Int(authority[authority.index(after: colon)...]), (1...65535).contains(p) else { return nil }
            host = String(authority[..<colon])
            port = p
        } else {
            host = String(authority)
            port = 80
        }
        host = host.trimmingCharacters(in: ["[", "]"])
        guard !host.isEmpty else { return nil }
    }

    /// `ws://host:port/path`.
    public var description: String { "ws://\(host.contains(":") ? "[\(host)]" : host):\(port)\(path)" }
}

extension String {
    fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}

/// A minimal, correct WebSocket client on SwiftNIO for replay, fuzzing and benchmarks:
/// text messages in and out, permessage-deflate, fragmentation and pings handled.
public enum WebSocketClient {
    enum Upgrade {
        case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, DeflateAgreement?)
        case refused
    }

    /// Connects, runs `body` with the open session, then closes with 1000.
    /// Throws ``WebSocketClientError`` when the host is down or refuses the upgrade.
    public static func withConnection<T: Sendable>(
        to url: WebSocketURL, options: WebSocketClientOptions = .init(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        _ body: @Sendable (WebSocketSession) async throws -> T
    ) async throws -> T {
        let upgrade: EventLoopFuture<Upgrade>
        do {
            upgrade = try await ClientBootstrap(group: group)
                .connectTimeout(.milliseconds(Int64(options.connectTimeout * 1000)))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                // A server that refuses at once (the proxy's 1014 when its upstream fails)
                // sends its close frame and a FIN right behind the 101: the FIN must not
                // close the channel before the upgraded pipeline has read what came first.
                .channelOption(.allowRemoteHalfClosure, value: true)
                .connect(host: url.host, port: url.port) { channel in
                    channel.eventLoop.makeCompletedFuture { try configure(channel, url: url, options: options) }
                }
        } catch {
            throw WebSocketClientError(description: "cannot connect to \(url): \(NetworkErrorText.describe(error)) (is the host running? start it with `bridgescope host --listen \(url.host):\(url.port)`)")
        }
        let outcome: Upgrade
        do { outcome = try await upgrade.get() } catch {
            throw WebSocketClientError(description: "\(url) accepted the connection but did not complete the WebSocket upgrade within \(options.connectTimeout) s (\(NetworkErrorText.describe(error)))")
        }
        switch outcome {
        case .refused:
            throw WebSocketClientError(description: "\(url) refused the WebSocket upgrade (wrong path, or Origin not allowed)")
        case .websocket(let channel, let agreement):
            return try await channel.executeThenClose { inbound, outbound in
                let codec = try agreement.map { try PerMessageDeflate(agreement: $0, maxMessageBytes: options.maxMessageBytes, isServer: false) }
                let session = WebSocketSession(outbound: outbound, codec: codec)
                return try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        try await session.pump(inbound, maxMessageBytes: options.maxMessageBytes, maxInflationRatio: options.maxInflationRatio)
                    }
                    defer { group.cancelAll() }
                    let result = try await body(session)
                    try? await session.close()
                    return result
                }
            }
        }
    }

    static func configure(_ channel: Channel, url: WebSocketURL, options: WebSocketClientOptions) throws -> EventLoopFuture<Upgrade> {
        // First in the pipeline: sees the server's FIN even while the upgrade is running.
        let latch = InputClosedLatch()
        try channel.pipeline.syncOperations.addHandler(latch, position: .first)
        let latched = NIOLoopBound(latch, eventLoop: channel.eventLoop)
        let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(
            maxFrameSize: options.maxMessageBytes,
            upgradePipelineHandler: { channel, response in
                channel.eventLoop.makeCompletedFuture {
                    let header = response.headers["sec-websocket-extensions"].joined(separator: ", ")
                    let agreement = options.deflate && !header.isEmpty ? DeflateAgreement.negotiate(offerHeader: header) : nil
                    let async = try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel)
                    return Upgrade.websocket(async, agreement)
                }
            }
        )
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "\(url.host):\(url.port)")
        if let origin = options.origin { headers.add(name: "Origin", value: origin) }
        if options.deflate { headers.add(name: "Sec-WebSocket-Extensions", value: "permessage-deflate; client_max_window_bits") }
        headers.add(name: "Content-Length", value: "0")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: url.path, headers: headers)
        let config = NIOTypedHTTPClientUpgradeConfiguration(
            upgradeRequestHead: head, upgraders: [upgrader],
            notUpgradingCompletionHandler: { $0.eventLoop.makeSucceededFuture(.refused) }
        )
        // A host may send its first frame in the same read as the 101 response (the
        // reference host's host.ready): forward those bytes instead of NIO's default drop.
        var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: config)
        pipeline.leftOverBytesStrategy = .forwardBytes
        let upgraded = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
        // The connect timeout covers the upgrade too: a host that accepts the connection
        // and never answers must not hold the caller (issue 20).
        let deadline = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(options.connectTimeout * 1000))) {
            channel.close(promise: nil)
        }
        upgraded.whenComplete { _ in
            deadline.cancel()
            latched.value.release(channel)
        }
        return upgraded
    }
}
