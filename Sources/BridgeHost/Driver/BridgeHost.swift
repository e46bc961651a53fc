import Synchronization
import BridgeJSON
import BridgeProtocol
import Logging
import BridgeClock

/// The reference host: a platform-neutral port of the seeds' `BridgeHost`, driving a
/// ``HostStateMachine`` over a ``HostTransport`` on an injectable ``EpochClock``.
///
/// ```swift
/// let host = BridgeHost(hostVersion: "1.0.0")
/// host.documentCapture.handler = { [weak host] request in
///     guard let host else { return .cancelled(reason: "Host deallocated") }
///     return await host.documentCapture.awaitCompletion()
/// }
/// host.registerCustomCapability("nfc.read", version: "1.0") { request, responder in
///     responder.respond(status: .success, data: ...)
/// }
/// await host.run(transport: transport)   // returns when the web side closes and work is done
/// ```
///
/// All state sits behind one lock, so every property and method can be used from any
/// thread or task; nothing blocks or suspends while the lock is held. Handlers, timers and
/// delegate calls run as child tasks of ``run(transport:)`` (structured: cancelling the
/// run cancels them).
public final class BridgeHost: Sendable {
    /// A typed slot's handler: returns the capture's outcome.
    public typealias SlotHandler = @Sendable (Envelope) async -> CaptureResult
    /// A custom capability's handler: answers through the responder exactly once.
    public typealias CustomCapabilityHandler = @Sendable (Envelope, BridgeResponder) async -> Void

    struct SlotCompletion {
        var token: RequestToken
        var result: CaptureResult?
        var waiter: CheckedContinuation<CaptureResult, Never>?
        var delivered = false
    }

    struct WeakDelegate {
        weak var value: (any BridgeHostDelegate)?
    }

    struct Core {
        var machine: HostStateMachine
        var slotHandlers: [SlotKind: SlotHandler] = [:]
        var customHandlers: [String: CustomCapabilityHandler] = [:]
        var configurationHandlers: [String: any BridgeCapabilityHandler] = [:]
        var completions: [SlotKind: SlotCompletion] = [:]
        var delegate = WeakDelegate()
        var running = false
        var inputEnded = false
        var jobsFinished = false
    }

    enum Job: Sendable {
        case slot(SlotKind, RequestToken, Envelope, SlotHandler)
        case custom(RequestToken, Envelope, CustomCapabilityHandler)
        case configuration(RequestToken, Envelope, any BridgeCapabilityHandler)
        case timer(TimerID, at: Int64)
    }

    enum Note: Sendable {
        case received(Envelope)
        case rejected(RejectedMessage)
        case unhandled(Envelope, RequestToken)
    }

    let core: Mutex<Core>
    /// The clock the host reads and sleeps on.
    public let clock: any EpochClock
    /// Where the host logs (debug: every message; notice and up: what went wrong).
    public let logger: Logger
    let outbound = AsyncStream.makeStream(of: [UInt8].self)
    let jobs = AsyncStream.makeStream(of: Job.self)
    let notes = AsyncStream.makeStream(of: Note.self)

    /// Creates a host around a prepared machine (scenario hosts, tests).
    public init(machine: HostStateMachine, clock: any EpochClock = WallClock(),
                logger: Logger = Logger(label: "bridgescope.host")) {
        self.core = Mutex(Core(machine: machine))
        self.clock = clock
        self.logger = logger
    }

    /// A host whose `capability.query` answer is built from its slots and custom
    /// capabilities (seed 002's `init(hostVersion:)`). Slots start with no handler.
    public convenience init(hostVersion: String = "1.0.0", environment: HostEnvironment = .ios,
                            limits: HostLimits = .default, clock: any EpochClock = WallClock(),
                            logger: Logger = Logger(label: "bridgescope.host"), eventIDSeed: UInt64? = nil) {
        let settings = HostStateMachine.Settings(hostVersion: hostVersion, environment: environment, limits: limits)
        self.init(machine: HostStateMachine(settings: settings, eventIDSeed: eventIDSeed ?? .random(in: .min ... .max)),
                  clock: clock, logger: logger)
    }

    /// A configuration-based host (seed 002's `init(configuration:)`): `capability.query`
    /// reports the configuration's capabilities, under any slot or custom capability.
    public convenience init(configuration: BridgeConfiguration, limits: HostLimits = .default,
                            clock: any EpochClock = WallClock(), logger: Logger = Logger(label: "bridgescope.host"),
                            eventIDSeed: UInt64? = nil) {
        let settings = HostStateMachine.Settings(hostVersion: configuration.hostVersion,
                                                 environment: configuration.environment,
                                                 staticCapabilities: configuration.capabilities, limits: limits)
        self.init(machine: HostStateMachine(settings: settings, eventIDSeed: eventIDSeed ?? .random(in: .min ... .max)),
                  clock: clock, logger: logger)
    }

    /// The delegate (held weakly).
    public var delegate: (any BridgeHostDelegate)? {
        get { core.withLock { $0.delegate.value } }
        set { core.withLock { $0.delegate.value = newValue } }
    }

    /// `hostVersion`.
    public var hostVersion: String { core.withLock { $0.machine.settings.hostVersion } }
    /// `environment`.
    public var environment: HostEnvironment { core.withLock { $0.machine.settings.environment } }
    /// Requests in progress, oldest first (routed to a handler, or kept by the delegate).
    public var pendingRequests: [Envelope] { core.withLock { $0.machine.pendingRequests } }
    /// The last 200 (``HostLimits/maxReceivedHistory``) valid envelopes received.
    public var receivedMessages: [Envelope] { core.withLock { $0.machine.receivedMessages } }
    /// The `data` the host would answer to `capability.query` now.
    public var capabilityAnswer: JSONObject { core.withLock { $0.machine.capabilityAnswer() } }

    /// Sends `host.ready` if not yet sent. ``run(transport:)`` calls it first.
    public func start() {
        let now = clock.milliseconds
        mutate { $0.start(now: now) }
    }

    /// Feeds one message from the web side (transports call this through ``run(transport:)``).
    public func receive(_ bytes: [UInt8]) {
        let now = clock.milliseconds
        mutate { $0.receive(bytes, now: now) }
    }

    /// Sends a host event (`host.background`, `journey.cancel`, ...) with a fresh
    /// `<environment>-event-<uuid>` id. Throws when the encoder refuses it (for instance a
    /// malformed action name); nothing is sent then.
    @discardableResult
    public func send(event action: Action, data: JSONObject? = nil) throws(HostError) -> Envelope {
        let now = clock.milliseconds
        var sent: Envelope?
        mutate { m in
            let r = m.sendEvent(action, data: data, now: now)
            sent = r.envelope
            return r.actions
        }
        guard let sent else {
            throw HostError(.invalidEnvelope, "event \"\(action.rawValue.prefix(80))\" would not be a valid envelope")
        }
        return sent
    }

    /// ``send(event:data:)`` with a dictionary (members sorted by key).
    @discardableResult
    public func send(event action: Action, data: [String: JSONValue]) throws(HostError) -> Envelope {
        try send(event: action, data: JSONObject(data.keys.sorted().map { JSONObject.Member(key: $0, value: data[$0]!) }))
    }

    /// Answers a request nobody handles (seed 003's `host.respond(to:status:error:)`): only
    /// requests offered to the delegate and still pending; anything else is refused and
    /// logged. Returns whether the answer was sent.
    @discardableResult
    public func respond(to correlationId: String, status: Status, data: JSONObject? = nil,
                        error: ErrorPayload? = nil) -> Bool {
        let now = clock.milliseconds
        var sent = false
        mutate { m in
            let actions = m.respond(to: correlationId, with: BridgeResponse(status: status, data: data, error: error), now: now)
            sent = actions.contains { if case .send = $0 { return true } else { return false } }
            return actions
        }
        return sent
    }

    /// Schedules a host event `delayMs` from now.
    public func schedule(event action: Action, data: JSONObject? = nil, delayMs: Int64) {
        let now = clock.milliseconds
        mutate { $0.scheduleEvent(action, data: data, delayMs: delayMs, now: now) }
    }

    // MARK: - Internal plumbing

    /// Runs `change` on the machine under the lock, performs the actions it returns, then
    /// logs outside the lock.
    func mutate(_ change: (inout HostStateMachine) -> [HostAction]) {
        let logs = core.withLock { c in perform(change(&c.machine), &c) }
        emit(logs)
    }

    func complete(_ token: RequestToken, with response: BridgeResponse) -> Bool {
        let now = clock.milliseconds
        var accepted = false
        let logs = core.withLock { c -> [HostLogEntry] in
            var actions: [HostAction] = []
            accepted = c.machine.complete(token, with: response, now: now, into: &actions)
            return perform(actions, &c)
        }
        emit(logs)
        return accepted
    }

    func responderDropped(_ token: RequestToken) {
        let now = clock.milliseconds
        mutate { $0.responderDropped(token, now: now) }
    }

    func log(_ entry: HostLogEntry) { emit([entry]) }

    /// Performs machine actions while the lock is held: only non-blocking stream yields.
    func perform(_ actions: [HostAction], _ c: inout Core) -> [HostLogEntry] {
        var logs: [HostLogEntry] = []
        var queue = actions[...]
        let now = clock.milliseconds
        while let action = queue.popFirst() {
            switch action {
            case .send(let m): outbound.continuation.yield(m.bytes)
            case .notifyReceived(let e): if c.delegate.value != nil { notes.continuation.yield(.received(e)) }
            case .notifyRejected(let r): if c.delegate.value != nil { notes.continuation.yield(.rejected(r)) }
            case .offerUnhandled(let e, let token):
                if c.delegate.value != nil, c.running {
                    notes.continuation.yield(.unhandled(e, token))
                } else {
                    queue.append(contentsOf: c.machine.delegateFinished(token, keepPending: false, now: now))
                }
            case .startHandler(let start):
                if let job = job(for: start, c) {
                    jobs.continuation.yield(job)
                } else {
                    queue.append(.log(HostLogEntry(.error, "handler-missing", "no handler code for \(start.route)",
                                                   correlationId: start.token.correlationId)))
                    var more: [HostAction] = []
                    c.machine.complete(start.token, with: .failure(.internalError, "The host has no handler for \(start.request.payload.action)",
                                                                   recoverable: false), now: now, into: &more)
                    queue.append(contentsOf: more)
                }
            case .scheduleTimer(let id, let at): jobs.continuation.yield(.timer(id, at: at))
            case .cancelTimer: break  // a cancelled timer fires harmlessly
            case .log(let entry): logs.append(entry)
            }
        }
        if c.inputEnded, c.machine.isIdle, !c.jobsFinished {
            c.jobsFinished = true
            jobs.continuation.finish()
        }
        return logs
    }

    func job(for start: HandlerStart, _ c: Core) -> Job? {
        switch start.route {
        case .slot(let kind): return c.slotHandlers[kind].map { .slot(kind, start.token, start.request, $0) }
        case .custom(let id): return c.customHandlers[id].map { .custom(start.token, start.request, $0) }
        case .configuration(let a): return c.configurationHandlers[a].map { .configuration(start.token, start.request, $0) }
        case .delegate: return nil
        }
    }

    func emit(_ entries: [HostLogEntry]) {
        for e in entries {
            var metadata: Logger.Metadata = ["event": .string(e.event)]
            if let id = e.correlationId { metadata["correlationId"] = .string(String(id.prefix(200))) }
            if !e.findings.isEmpty { metadata["findings"] = .string(e.findings.map(\.description).joined(separator: "; ")) }
            logger.log(level: e.level.loggerLevel, "\(e.message)", metadata: metadata)
        }
    }
}

extension HostLogLevel {
    /// The swift-log level (for drivers that log the state machine's entries).
    public var loggerLevel: Logger.Level {
        switch self {
        case .debug: return .debug
        case .info: return .info
        case .notice: return .notice
        case .warning: return .warning
        case .error: return .error
        }
    }
}
