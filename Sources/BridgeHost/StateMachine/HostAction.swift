import BridgeJSON
import BridgeProtocol

/// Identifies one routed request: its correlationId and a serial number unique for the
/// life of the host, so a late answer to an earlier request that used the same id can
/// never answer the new one.
public struct RequestToken: Sendable, Hashable, CustomStringConvertible {
    /// The request's correlationId.
    public var correlationId: String
    /// Serial number assigned when the request was routed (1, 2, ...).
    var serial: UInt64

    /// Creates a token.
    public init(correlationId: String, serial: UInt64) {
        self.correlationId = correlationId
        self.serial = serial
    }

    /// `correlationId#serial`.
    public var description: String { "\(correlationId)#\(serial)" }
}

/// A timer the state machine asked its driver to run.
public struct TimerID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Unique for the life of the host.
    public var rawValue: UInt64
    /// Wraps a raw id.
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// Orders by creation.
    public static func < (a: TimerID, b: TimerID) -> Bool { a.rawValue < b.rawValue }
    /// `timer-N`.
    public var description: String { "timer-\(rawValue)" }
}

/// Where a request was routed (PROTOCOL.md §3 precedence).
public enum Route: Sendable, Hashable, CustomStringConvertible {
    /// A typed slot with a handler and enabled.
    case slot(SlotKind)
    /// A custom capability registered with this id.
    case custom(String)
    /// A configuration handler registered for this action.
    case configuration(String)
    /// Nobody: offered to the delegate, then answered `unsupported`.
    case delegate

    /// `slot camera.document`, `custom nfc.read`, ...
    public var description: String {
        switch self {
        case .slot(let k): return "slot \(k.capabilityID)"
        case .custom(let id): return "custom \(id)"
        case .configuration(let a): return "configuration \(a)"
        case .delegate: return "delegate"
        }
    }
}

/// One host-to-web message: the envelope and exactly the bytes that go on the wire.
public struct OutboundMessage: Sendable, Hashable {
    /// The envelope sent.
    public var envelope: Envelope
    /// Its compact JSON bytes (no newline), produced by `EnvelopeEncoder`.
    public var bytes: [UInt8]
}

/// A received message that was not a valid envelope (PROTOCOL.md §4): never routed.
public struct RejectedMessage: Sendable, Hashable {
    /// Size of the message in bytes.
    public var byteCount: Int
    /// What could be read of it.
    public var partial: PartialEnvelope
    /// Why it is invalid.
    public var findings: [Finding]
    /// Whether the host answered it with `INVALID_REQUEST`.
    public var answered: Bool
}

/// A request handed to code outside the state machine.
public struct HandlerStart: Sendable, Hashable {
    /// The token to complete it with.
    public var token: RequestToken
    /// The request.
    public var request: Envelope
    /// Where it was routed (never `.delegate`: that is ``HostAction/offerUnhandled(_:_:)``).
    public var route: Route
}

/// Severity of a host log entry (mapped onto swift-log levels by the driver).
public enum HostLogLevel: String, Sendable, Hashable, Comparable {
    /// Per-message detail.
    case debug
    /// Normal journey milestones.
    case info
    /// Something the web side did wrong, handled.
    case notice
    /// Something a handler or the host's user did wrong, handled.
    case warning
    /// The host could not do what the protocol asks.
    case error

    private var rank: Int { [.debug, .info, .notice, .warning, .error].firstIndex(of: self)! }
    /// Orders by severity.
    public static func < (a: HostLogLevel, b: HostLogLevel) -> Bool { a.rank < b.rank }
}

/// One thing worth logging, with a stable `event` code so tests and tools can match it.
public struct HostLogEntry: Sendable, Hashable, CustomStringConvertible {
    /// Severity.
    public var level: HostLogLevel
    /// A stable code: `received`, `sent`, `invalid-input`, `busy`, `unsupported`,
    /// `response-refused`, `duplicate-correlation-id`, `encoder-refused`, ...
    public var event: String
    /// A sentence.
    public var message: String
    /// The correlationId concerned, if any.
    public var correlationId: String?
    /// Protocol findings behind it (decoder or encoder), if any.
    public var findings: [Finding]

    /// Creates an entry.
    public init(_ level: HostLogLevel, _ event: String, _ message: String, correlationId: String? = nil,
                findings: [Finding] = []) {
        self.level = level
        self.event = event
        self.message = message
        self.correlationId = correlationId
        self.findings = findings
    }

    /// `level event: message [findings]`.
    public var description: String {
        let f = findings.isEmpty ? "" : " " + findings.map(\.description).joined(separator: "; ")
        return "\(level) \(event): \(message)\(f)"
    }
}

/// What the state machine asks its driver to do. The machine does no I/O: the driver
/// sends, starts handlers, notifies the delegate, runs timers and logs, in order.
public enum HostAction: Sendable, Hashable {
    /// Send this message to the web side.
    case send(OutboundMessage)
    /// Tell the delegate a valid envelope arrived (before it is routed).
    case notifyReceived(Envelope)
    /// Tell the delegate an invalid message arrived (it was not routed).
    case notifyRejected(RejectedMessage)
    /// Nobody handles this request: give the delegate its chance, then report back with
    /// ``HostStateMachine/delegateFinished(_:keepPending:now:)``.
    case offerUnhandled(Envelope, RequestToken)
    /// Start external handler code for this request, then report back with
    /// ``HostStateMachine/complete(_:with:now:)`` or ``HostStateMachine/complete(_:capture:now:)``.
    case startHandler(HandlerStart)
    /// Call ``HostStateMachine/timerFired(_:now:)`` at this time (epoch ms).
    case scheduleTimer(TimerID, at: Int64)
    /// The timer is no longer needed (firing it anyway is harmless).
    case cancelTimer(TimerID)
    /// Log this.
    case log(HostLogEntry)
}
