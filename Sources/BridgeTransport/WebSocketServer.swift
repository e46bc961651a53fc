import BridgeWebSocket
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// The reference host's network face: HTTP/1.1 plus WebSocket on SwiftNIO.
///
/// `GET /bridge` upgrades to WebSocket (one envelope per text frame, permessage-deflate
/// when offered and enabled); `GET /bridge.js`, `/journeys/...`, `/healthz` and `/` are
/// plain HTTP (``StaticRoutes``). Each WebSocket gets its own ``BridgeConnection`` from
/// the factory: connections are independent.
public final class WebSocketServer: Sendable {
    /// The configuration in force.
    public let configuration: WebSocketServerConfiguration
    /// The memory budget shared by every connection of this server (and by the recording
    /// proxy's upstream connections): ``WebSocketServerConfiguration/memoryBudget`` bytes.
    public let memoryBudget: MemoryBudget
    private let factory: BridgeConnectionFactory
    private let logger: Logger
    /// Which connections are served (``ConnectionAdmission``).
    private let admission: AdmissionDriver
    private let group: MultiThreadedEventLoopGroup
    private let state = Mutex(State())

    private struct State {
        var serverChannel: Channel?
        var open: [ObjectIdentifier: Channel] = [:]
        var nextID = 1
        var shuttingDown = false
        var shutDown = false
        var shutdownHooks: [@Sendable () -> Void] = []
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Returns once ``shutdown(grace:)`` has finished (at once if it already has).
    public func waitUntilShutDown() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let done = state.withLock { s -> Bool in
                if !s.shutDown { s.shutdownWaiters.append(c) }
                return s.shutDown
            }
            if done { c.resume() }
        }
    }

    /// Runs `hook` when ``shutdown(grace:)`` starts.
    public func onShutdown(_ hook: @escaping @Sendable () -> Void) {
        state.withLock { $0.shutdownHooks.append(hook) }
    }

    /// Creates a server; nothing is bound until ``start()``. `memoryBudget` shares a budget
    /// with other parts of the process (the recording proxy's upstream connections);
    /// nil makes one of ``WebSocketServerConfiguration/memoryBudget`` bytes.
    public init(configuration: WebSocketServerConfiguration, memoryBudget: MemoryBudget? = nil, logger: Logger,
                factory: @escaping BridgeConnectionFactory) {
        self.configuration = configuration
        self.memoryBudget = memoryBudget ?? MemoryBudget(limit: configuration.memoryBudget)
        self.factory = factory
        self.logger = logger
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: Self.eventLoopThreads)
        self.admission = AdmissionDriver(limits: configuration.admissionLimits, loop: group.next(), logger: logger)
    }

    /// The connection cap and per-address share in force.
    package var admissionLimits: AdmissionLimits { admission.limits }

    /// Connections turned away so far.
    package var admissionCounts: AdmissionCounts { admission.totals }

    /// One event loop per CPU the process may run on: `System.coreCount` (cgroup quota
    /// aware), capped by the scheduler affinity mask (`taskset`), so a server pinned to one
    /// core runs one loop instead of several threads time-sharing that core.
    static var eventLoopThreads: Int {
        var count = System.coreCount
        if let allowed = Self.allowedCPUs(), allowed > 0 { count = min(count, allowed) }
        return max(1, count)
    }

    /// CPUs in the affinity mask (`Cpus_allowed` of `/proc/self/status`); nil where unknown.
    /// (Also the CLI's count of the cores it may use.)
    package static func allowedCPUs() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else { return nil }
        var bits = 0
        for c in line.dropFirst("Cpus_allowed:".count) {
            guard let v = c.hexDigitValue else { continue }
            bits += v.nonzeroBitCount
        }
        return bits
    }

    /// The number of open WebSocket connections.
    public var openConnections: Int { state.withLock { $0.open.count } }

    /// Binds and starts accepting; returns the bound port (useful with port 0).
    public func start() async throws -> Int {
        MemoryRelease.install()
        let cfg = configuration
        let routes = StaticRoutes(journeysDirectory: cfg.journeysDirectory)
        let policy = OriginPolicy(allowed: cfg.allowedOrigins)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .serverChannelInitializer { [admission] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptPacer(driver: admission))
                }
            }
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    // Refused connections get their 503 handler from admission, nothing else.
                    guard let ticket = try self.admission.admit(channel) else { return }
                    try self.configure(channel, routes: routes, policy: policy, ticket: ticket)
                }
            }
        let channel = try await bootstrap.bind(host: cfg.host, port: cfg.port).get()
        state.withLock { $0.serverChannel = channel }
        let limits = admission.limits
        logger.info("admitting connections", metadata: [
            "maxConnections": "\(limits.maxConnections)", "maxPerAddress": "\(limits.maxPerAddress)",
            "descriptorLimit": "\(AdmissionLimits.descriptorLimit())"])
        return channel.localAddress?.port ?? cfg.port
    }

    private func configure(_ channel: Channel, routes: StaticRoutes, policy: OriginPolicy, ticket: AdmissionTicket) throws {
        let cfg = configuration
        let upgraded = NIOLoopBoundBox(false, eventLoop: channel.eventLoop)
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: cfg.maxMessageBytes, automaticErrorHandling: true,
            shouldUpgrade: { ch, head in
                let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                guard path == "/bridge", head.headers["origin"].count <= 1,
                      policy.allows(head.headers.first(name: "origin")) else {
                    return ch.eventLoop.makeSucceededFuture(nil)
                }
                var headers = HTTPHeaders()
                if let agreement = Self.agreement(head, enabled: cfg.deflate) {
                    headers.add(name: "Sec-WebSocket-Extensions", value: agreement.responseHeader)
                }
                return ch.eventLoop.makeSucceededFuture(headers)
            },
            upgradePipelineHandler: { [self] ch, head in
                ch.eventLoop.makeCompletedFuture { try self.openWebSocket(ch, head: head, ticket: ticket) }
            }
        )
        let http = HTTPRequestHandler(routes: routes, originPolicy: policy)
        let httpBound = NIOLoopBound(http, eventLoop: channel.eventLoop)
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withServerUpgrade: (upgraders: [upgrader], completionHandler: { ctx in
                upgraded.value = true
                ctx.pipeline.syncOperations.removeHandler(httpBound.value, promise: nil)
            }),
            withErrorHandling: true
        )
        try channel.pipeline.syncOperations.addHandler(http)
        channel.eventLoop.scheduleTask(in: .milliseconds(Int64(cfg.handshakeTimeout * 1000))) {
            if !upgraded.value { channel.close(promise: nil) }
        }
    }

    private static func agreement(_ head: HTTPRequestHead, enabled: Bool) -> DeflateAgreement? {
        guard enabled else { return nil }
        let offers = head.headers["sec-websocket-extensions"].joined(separator: ", ")
        return offers.isEmpty ? nil : DeflateAgreement.negotiate(offerHeader: offers)
    }

    private func openWebSocket(_ channel: Channel, head: HTTPRequestHead, ticket: AdmissionTicket) throws {
        let agreement = Self.agreement(head, enabled: configuration.deflate)
        let (id, refused) = state.withLock { s -> (Int, Bool) in
            defer { s.nextID += 1 }
            if !s.shuttingDown { s.open[ObjectIdentifier(channel)] = channel }
            return (s.nextID, s.shuttingDown)
        }
        if refused { channel.close(promise: nil); return }
        let info = ConnectionInfo(id: "c\(id)", remote: channel.remoteAddress?.description ?? "?",
                                  origin: head.headers.first(name: "origin"), deflate: agreement != nil)
        let codec = try agreement.map { try PerMessageDeflate(agreement: $0, maxMessageBytes: configuration.maxMessageBytes) }
        let account = memoryBudget.account(evict: { channel.pipeline.fireUserInboundEventTriggered(EvictEvent()) })
        let handler = WebSocketBridgeHandler(info: info, configuration: configuration, connection: factory(info),
                                             codec: codec, account: account, admission: ticket, logger: logger)
        // NIO's frame decoder buffers a whole frame before anyone can look at it; ours
        // (FrameReader, in the handler) checks each length against the budget first.
        let decoder = try channel.pipeline.syncOperations.context(handlerType: ByteToMessageHandler<WebSocketFrameDecoder>.self)
        try channel.pipeline.syncOperations.addHandler(handler, position: .after(decoder.handler))
        channel.pipeline.syncOperations.removeHandler(context: decoder, promise: nil)
        // From here an eviction closes it with a close frame (AdmissionEvictEvent).
        ticket.upgraded()
        channel.closeFuture.whenComplete { [self] _ in
            state.withLock { _ = $0.open.removeValue(forKey: ObjectIdentifier(channel)) }
        }
    }

    /// Stops accepting, closes every WebSocket with 1001, waits up to `grace` seconds
    /// for them to close, then stops the event loops. A second call waits for the first.
    public func shutdown(grace: Double = 2) async {
        let (first, server, open, hooks) = state.withLock { s -> (Bool, Channel?, [Channel], [@Sendable () -> Void]) in
            defer { s.shuttingDown = true; s.shutdownHooks = [] }
            return (!s.shuttingDown, s.serverChannel, Array(s.open.values), s.shutdownHooks)
        }
        guard first else { return await waitUntilShutDown() }
        for hook in hooks { hook() }
        try? await server?.close()
        for ch in open {
            ch.eventLoop.execute { ch.pipeline.fireUserInboundEventTriggered(ShutdownEvent()) }
        }
        let deadline = NIODeadline.now() + .milliseconds(Int64(grace * 1000))
        while openConnections > 0 && NIODeadline.now() < deadline {
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        for ch in state.withLock({ Array($0.open.values) }) { try? await ch.close() }
        try? await group.shutdownGracefully()
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.shutDown = true
            defer { s.shutdownWaiters = [] }
            return s.shutdownWaiters
        }
        for w in waiters { w.resume() }
    }
}
