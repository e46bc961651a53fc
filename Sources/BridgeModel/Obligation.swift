/// What the protocol obliges every host to do, whatever it chose where PROTOCOL.md §7
/// leaves a choice: the reason a ``ModelViolation`` gives. An open set.
public struct Obligation: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The spelling, e.g. `one-final-response`.
    public let rawValue: String
    /// Wraps a spelling.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The spelling.
    public var description: String { rawValue }

    /// Every request gets exactly one final response (an `acknowledged` may precede it).
    public static let oneFinalResponse = Obligation(rawValue: "one-final-response")
    /// Every message that is a JSON object with `"type":"request"` and a non-empty string
    /// `correlationId` is answered.
    public static let everyRequestAnswered = Obligation(rawValue: "every-request-answered")
    /// A response repeats its request's `correlationId` and `action`.
    public static let sameIdAndAction = Obligation(rawValue: "same-id-and-action")
    /// No answer routed from bytes that are not such a request.
    public static let noUnsolicitedAnswer = Obligation(rawValue: "no-unsolicited-answer")
    /// A typed slot serves one capture at a time: a second one is answered BUSY.
    public static let busyWhileServing = Obligation(rawValue: "busy-while-serving")
    /// BUSY only when something is busy.
    public static let busyOnlyWhenBusy = Obligation(rawValue: "busy-only-when-busy")
    /// A well-formed request is routed, not answered INVALID_REQUEST.
    public static let validRequestRouted = Obligation(rawValue: "valid-request-routed")
    /// A malformed request is answered INVALID_REQUEST (or routed, §7).
    public static let malformedAnswer = Obligation(rawValue: "malformed-request-answer")
    /// `capability.query`'s success answer has the shape of §3.
    public static let capabilityShape = Obligation(rawValue: "capability-query-shape")
    /// The answers agree with the host's known configuration (a scenario: our host only).
    public static let knownConfiguration = Obligation(rawValue: "known-configuration")
    /// A response within the requester's timeout (exact timing only).
    public static let withinDeadline = Obligation(rawValue: "within-deadline")
    /// An `acknowledged` at most once (this project's rule, `--strict`).
    public static let oneAcknowledged = Obligation(rawValue: "one-acknowledged")

    /// The PROTOCOL.md section that fixes it.
    public var section: String {
        switch self {
        case .oneFinalResponse, .busyWhileServing, .withinDeadline, .oneAcknowledged: return "§2"
        case .everyRequestAnswered, .noUnsolicitedAnswer: return "§4, §7"
        case .sameIdAndAction: return "§1, §2"
        case .busyOnlyWhenBusy: return "§2, §7"
        case .validRequestRouted: return "§2, §4"
        case .malformedAnswer: return "§4, §7"
        case .capabilityShape: return "§3"
        case .knownConfiguration: return "§3 (the scenario)"
        default: return "§7"
        }
    }

    /// The rule in one sentence.
    public var sentence: String {
        switch self {
        case .oneFinalResponse: return "each request gets exactly one final response"
        case .everyRequestAnswered: return "every JSON object with type request and a non-empty string correlationId is answered"
        case .sameIdAndAction: return "a response repeats its request's correlationId and action"
        case .noUnsolicitedAnswer: return "nothing is answered that no request asked for"
        case .busyWhileServing: return "a typed capture slot serves one request at a time; a second is answered BUSY"
        case .busyOnlyWhenBusy: return "BUSY only while the slot serves another capture (or the id is in use)"
        case .validRequestRouted: return "a well-formed request is routed, not answered INVALID_REQUEST"
        case .malformedAnswer: return "a malformed request is answered error INVALID_REQUEST, or routed as far as it can be"
        case .capabilityShape: return "capability.query's success answer has environment, hostVersion and capabilities of §3's shape"
        case .knownConfiguration: return "capability.query and routing agree with the host's scenario"
        case .withinDeadline: return "a response comes within the requester's timeout"
        case .oneAcknowledged: return "at most one acknowledged response per request (this project's rule)"
        default: return rawValue
        }
    }
}

/// A trace no legal host could have produced: the obligation every explanation breaks,
/// the events that show it, and a sentence.
public struct ModelViolation: Sendable, Hashable, CustomStringConvertible {
    /// The obligation broken.
    public var obligation: Obligation
    /// A short, stable, input-independent description used to deduplicate findings, e.g.
    /// `second-final-response nfc.read`.
    public var signature: String
    /// What happened, naming ids and steps.
    public var message: String
    /// The indices (into ``HostHistory/events``) of the messages that prove it.
    public var evidence: [Int]

    /// Creates a violation.
    public init(_ obligation: Obligation, _ signature: String, _ message: String, evidence: [Int] = []) {
        self.obligation = obligation
        self.signature = signature
        self.message = message
        self.evidence = evidence
    }

    /// `message (PROTOCOL.md §N: sentence)`.
    public var description: String {
        "\(message) (PROTOCOL.md \(obligation.section): \(obligation.sentence))"
    }
}
