import BridgeJSON
import BridgeProtocol

/// The reference host's routing and slot state as a value type (STYLE.md habit 2).
///
/// Every method takes an input (received bytes, a handler's completion, the delegate's
/// decision, a timer firing, a configuration change) and the current time, and returns
/// the ``HostAction``s to perform. It does no I/O, never sleeps and never reads a clock,
/// so the same machine runs under the ``BridgeHost`` driver on a real clock, and under
/// ``HostSimulator`` on a virtual one in tests and the fuzzer.
///
/// Guarantees, whatever it is fed:
/// - every envelope it sends went through `EnvelopeEncoder` (it decodes with zero findings);
/// - each routed request gets exactly one final response; answers that come too late,
///   twice, or for a request that was never routed are refused and logged, never sent;
/// - invalid messages are never routed (PROTOCOL.md §4);
/// - its state is bounded by ``HostLimits``.
public struct HostStateMachine: Sendable {
    /// How a request's answer is built and where the capability list comes from.
    public struct Settings: Sendable, Hashable {
        /// `hostVersion` in `capability.query` and `host.ready`.
        public var hostVersion: String
        /// `environment`; also the prefix of event ids.
        public var environment: HostEnvironment
        /// Static capabilities (`BridgeHost(configuration:)`); lowest precedence.
        public var staticCapabilities: [String: BridgeCapabilityInfo]
        /// Limits on held state.
        public var limits: HostLimits
        /// Send `host.ready` from ``start(now:)``. Default true.
        var sendsHostReady: Bool
        /// Host events ``start(now:)`` schedules (scenario `events`).
        var startupEvents: [ScheduledEvent]

        /// Creates settings.
        public init(hostVersion: String = "1.0.0", environment: HostEnvironment = .ios,
                    staticCapabilities: [String: BridgeCapabilityInfo] = [:], limits: HostLimits = .default,
                    sendsHostReady: Bool = true, startupEvents: [ScheduledEvent] = []) {
            self.hostVersion = hostVersion
            self.environment = environment
            self.staticCapabilities = staticCapabilities
            self.limits = limits
            self.sendsHostReady = sendsHostReady
            self.startupEvents = startupEvents
        }
    }

    /// A host event sent `atMs` after the host starts.
    public struct ScheduledEvent: Sendable, Hashable {
        /// Milliseconds after ``start(now:)``.
        public var atMs: Int64
        /// The event's action, e.g. `host.background`.
        public var action: Action
        /// The event's data, if any.
        public var data: JSONObject?

        /// Creates a scheduled event.
        public init(atMs: Int64, action: Action, data: JSONObject? = nil) {
            self.atMs = atMs
            self.action = action
            self.data = data
        }
    }

    struct SlotState: Sendable {
        var handler: HandlerKind?
        var isEnabled = true
        var permissionState: PermissionState?
        var version = "1.0"
        var active: RequestToken?
        var served = 0
    }

    struct CustomCapability: Sendable {
        var id: String
        var version: String
        var handler: HandlerKind
        var served = 0
    }

    struct Pending: Sendable {
        var request: Envelope
        var route: Route
        var token: RequestToken
        var receivedAt: Int64
        var size: Int
        var acknowledged = false
        var timer: TimerID?
    }

    enum TimerPurpose: Sendable {
        case scripted(RequestToken, BridgeResponse)
        case event(Action, JSONObject?)
    }

    /// The settings in force.
    public internal(set) var settings: Settings
    var slots: [SlotKind: SlotState] = [.document: SlotState(), .selfie: SlotState()]
    var customCapabilities: [CustomCapability] = []
    var configurationHandlers: [String: HandlerKind] = [:]
    var pending: [String: Pending] = [:]
    var timers: [TimerID: TimerPurpose] = [:]
    var history: [(envelope: Envelope, size: Int)] = []
    /// Index of the oldest entry of ``history`` still kept (entries before it are dropped
    /// in bulk, so remembering a message is O(1) amortized).
    var historyHead = 0
    var historyBytes = 0
    /// The encoded `capability.query` answer; nil after any configuration change.
    var capabilityCache: CapabilityAnswerCache?
    var pendingBytes = 0
    var nextSerial: UInt64 = 0
    var nextTimer: UInt64 = 0
    var eventIDs: EventIDGenerator
    var started = false
    /// Whether the machine returns `debug` log entries (`received`, `routed`, `sent`; on
    /// by default). A driver whose logger drops debug entries turns this off so the
    /// machine does not build them for every message.
    public var emitsDebugLog = true
    let decoder: EnvelopeDecoder
    let encoder = EnvelopeEncoder()

    /// Creates a machine with no handlers. `eventIDSeed` seeds the event id generator
    /// (use a random seed outside tests).
    public init(settings: Settings = Settings(), eventIDSeed: UInt64) {
        self.settings = settings
        self.eventIDs = EventIDGenerator(seed: eventIDSeed)
        self.decoder = EnvelopeDecoder(limits: settings.limits.json)
    }
}

// MARK: - Configuration

extension HostStateMachine {
    /// Sets or clears a slot's handler (handler-as-declaration, seed 002). Clearing it does
    /// not cancel a capture in progress.
    public mutating func setSlotHandler(_ slot: SlotKind, _ handler: HandlerKind?) {
        capabilityCache = nil
        slots[slot]!.handler = handler
    }

    /// Enables or disables a slot without removing its handler.
    public mutating func setSlotEnabled(_ slot: SlotKind, _ enabled: Bool) {
        capabilityCache = nil
        slots[slot]!.isEnabled = enabled
    }

    /// Sets the permission state reported for a slot (nil: not reported).
    public mutating func setSlotPermission(_ slot: SlotKind, _ state: PermissionState?) {
        capabilityCache = nil
        slots[slot]!.permissionState = state
    }

    /// Sets the version reported for a slot (default `1.0`).
    mutating func setSlotVersion(_ slot: SlotKind, _ version: String) {
        capabilityCache = nil
        slots[slot]!.version = version
    }

    /// Registers (or replaces) a custom capability; its action is its id.
    public mutating func registerCustomCapability(_ id: String, version: String, handler: HandlerKind) {
        capabilityCache = nil
        if let i = customCapabilities.firstIndex(where: { $0.id == id }) {
            customCapabilities[i] = CustomCapability(id: id, version: version, handler: handler)
        } else {
            customCapabilities.append(CustomCapability(id: id, version: version, handler: handler))
        }
    }

    /// Removes a custom capability (requests in progress still complete).
    public mutating func unregisterCustomCapability(_ id: String) {
        capabilityCache = nil
        customCapabilities.removeAll { $0.id == id }
    }

    /// Registers (or replaces) a configuration handler for `action`.
    public mutating func registerConfigurationHandler(action: String, _ handler: HandlerKind) {
        configurationHandlers[action] = handler
    }

    /// Removes the configuration handler for `action`.
    mutating func unregisterConfigurationHandler(action: String) {
        configurationHandlers.removeValue(forKey: action)
    }
}

// MARK: - Queries

extension HostStateMachine {
    /// Whether the slot has a handler and is enabled (seed 002's `isSupported`).
    public func isSupported(_ slot: SlotKind) -> Bool {
        let s = slots[slot]!
        return s.handler != nil && s.isEnabled
    }

    /// Whether the slot has a handler.
    public func hasHandler(_ slot: SlotKind) -> Bool { slots[slot]!.handler != nil }

    /// Whether the slot is enabled.
    public func isEnabled(_ slot: SlotKind) -> Bool { slots[slot]!.isEnabled }

    /// The slot's permission state, if set.
    public func permissionState(_ slot: SlotKind) -> PermissionState? { slots[slot]!.permissionState }

    /// The slot's reported version.
    public func version(_ slot: SlotKind) -> String { slots[slot]!.version }

    /// The request the slot is serving, if any.
    public func activeRequest(_ slot: SlotKind) -> Envelope? {
        guard let t = slots[slot]!.active else { return nil }
        return pending[t.correlationId]?.request
    }

    /// The token of the request the slot is serving, if any.
    public func activeToken(_ slot: SlotKind) -> RequestToken? { slots[slot]!.active }

    /// Registered custom capability ids, in registration order.
    public var customCapabilityIDs: [String] { customCapabilities.map(\.id) }

    /// Actions with a configuration handler, sorted.
    var configurationActions: [String] { configurationHandlers.keys.sorted() }

    /// Requests routed and not yet finally answered, oldest first.
    public var pendingRequests: [Envelope] {
        pending.values.sorted { $0.token.serial < $1.token.serial }.map(\.request)
    }

    /// The token of a pending request, if `correlationId` is pending.
    func pendingToken(_ correlationId: String) -> RequestToken? { pending[correlationId]?.token }

    /// Where a pending request was routed.
    func pendingRoute(_ correlationId: String) -> Route? { pending[correlationId]?.route }

    /// Number of requests in progress.
    public var pendingCount: Int { pending.count }

    /// Bytes (as received) of the requests in progress.
    public var pendingByteCount: Int { pendingBytes }

    /// Number of timers the driver should be running.
    public var timerCount: Int { timers.count }

    /// Whether nothing is in progress: no pending request (scheduled events do not count).
    var isIdle: Bool { pending.isEmpty }

    /// The last ``HostLimits/maxReceivedHistory`` valid envelopes received, oldest first.
    public var receivedMessages: [Envelope] {
        history[historyHead...].map(\.envelope)
    }
}
