import BridgeProtocol

/// One step of a connection's journey: a request with its outcome, or an event.
public struct JourneyStep: Sendable, Hashable {
    /// What kind of step.
    public enum Kind: String, Sendable, Hashable {
        /// A web request and its response.
        case request
        /// An event (either direction).
        case event
        /// A capture event (connection opened or closed, gap, drop).
        case capture
    }

    /// The kind.
    public var kind: Kind
    /// The action (`camera.document.capture`, `host.ready`, ...), or the capture event's name.
    public var action: String
    /// The request's or event's correlationId.
    public var correlationId: String?
    /// The direction of the request or event.
    public var direction: Direction
    /// When the request or event was captured (ns since the epoch).
    public var start: Int64
    /// When the final response was captured (requests only).
    public var end: Int64?
    /// When an `acknowledged` response was captured (requests only).
    public var acknowledged: Int64?
    /// The final response's status (`success`, `error`, ...), `unanswered`, or nil for events.
    public var outcome: String?
    /// The final response's error code, when it has one.
    public var errorCode: String?
    /// The final response's `error.recoverable`, when it has an error object.
    public var recoverable: Bool?
    /// A short detail: the document side, the journey status, an error message.
    public var detail: String?
    /// Record numbers: the request or event, then the responses.
    public var records: [Int]
    /// Rules that fired on this step.
    public var findings: [RuleID]
    /// Why the step was cut short, when it was: ``openRequestLimit`` for a request sent
    /// while ``AnalyzerConfiguration/Limits/maxOpenRequestsPerConnection`` requests were
    /// open on its connection (only a streaming analysis, ``JourneySink``, makes such a
    /// step: it ends when sent, outcome `untracked`, and is never paired).
    public var truncated: String? = nil

    /// ``truncated`` of a request past the open-request limit.
    public static let openRequestLimit = "open-request-limit"

    /// Creates a step (the analyzer builds them; renderers and tests may too).
    public init(kind: Kind, action: String, correlationId: String? = nil, direction: Direction, start: Int64,
                end: Int64? = nil, acknowledged: Int64? = nil, outcome: String? = nil, errorCode: String? = nil,
                detail: String? = nil, records: [Int], findings: [RuleID] = []) {
        self.kind = kind
        self.action = action
        self.correlationId = correlationId
        self.direction = direction
        self.start = start
        self.end = end
        self.acknowledged = acknowledged
        self.outcome = outcome
        self.errorCode = errorCode
        self.detail = detail
        self.records = records
        self.findings = findings
    }

    /// The request's duration in nanoseconds, when answered.
    public var duration: Int64? { end.map { $0 - start } }
}

/// How a connection's journey ended.
public struct JourneyOutcome: Sendable, Hashable {
    /// `complete`, `error`, `incomplete` (no journey.complete or journey.error), or
    /// `none` (the web side sent nothing: not a journey).
    public var state: String
    /// The journey.complete status or the journey.error message.
    public var detail: String?

    /// Creates an outcome.
    public init(state: String, detail: String? = nil) {
        self.state = state
        self.detail = detail
    }
}

/// Everything about one connection: counts, the journey steps, the outcome.
public struct ConnectionReport: Sendable, Hashable {
    /// The connection id (`-` when the input names none).
    public var id: String
    /// First capture time on this connection (ns).
    public var firstTime: Int64
    /// Last capture time on this connection (ns).
    public var lastTime: Int64
    /// Messages from the web side.
    public var webMessages: Int
    /// Messages from the host side.
    public var hostMessages: Int
    /// Requests sent.
    public var requests: Int
    /// Requests left without a final response at the end.
    public var unanswered: Int
    /// The journey steps in capture order (at most the configured cap).
    public var steps: [JourneyStep]
    /// Steps past the cap, counted only.
    public var stepsOmitted: Int
    /// The journey's outcome.
    public var outcome: JourneyOutcome
    /// What the host said about itself in the latest successful `capability.query`
    /// answer (`data.hostVersion`, `data.environment`), when there was one.
    public var hostVersion: String? = nil, environment: String? = nil
}
