/// The attribute keys bridgescope writes (docs/OTLP.md, "Mapping"): OpenTelemetry
/// semantic-convention keys where one fits, the rest under `bridgescope.`. An open set:
/// a later version may add keys, never change what one means.
public struct OTLPAttribute: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The key.
    public var rawValue: String
    /// Creates a key.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The key.
    public var description: String { rawValue }

    // Resource (semantic conventions).
    /// `service.name`: always `gbgbridge-journey` (the service is the web journey in its host).
    public static let serviceName = Self(rawValue: "service.name")
    /// `service.version`: the host's `hostVersion` from `capability.query`.
    public static let serviceVersion = Self(rawValue: "service.version")
    /// `deployment.environment.name`: the host's `environment` from `capability.query`.
    public static let deploymentEnvironment = Self(rawValue: "deployment.environment.name")
    /// `telemetry.sdk.name`, `.language`, `.version`: bridgescope, swift, its version.
    public static let sdkName = Self(rawValue: "telemetry.sdk.name")
    /// See ``sdkName``.
    public static let sdkLanguage = Self(rawValue: "telemetry.sdk.language")
    /// See ``sdkName``.
    public static let sdkVersion = Self(rawValue: "telemetry.sdk.version")

    // Resource (ours).
    /// The input file as given.
    public static let sessionFile = Self(rawValue: "bridgescope.session.file")
    /// The archive header's `source` (`tap:...`, `pcap:...`, `proxy:...`, `cdp:...`).
    public static let sessionSource = Self(rawValue: "bridgescope.session.source")
    /// The archive header's `host`: the machine that recorded.
    public static let recorderHost = Self(rawValue: "bridgescope.recorder.host")
    /// The archive header's `toolVersion`.
    public static let recorderVersion = Self(rawValue: "bridgescope.recorder.version")
    /// The archive header's `startTime` (ns since the epoch).
    public static let sessionStart = Self(rawValue: "bridgescope.session.start_time")

    // Spans (semantic conventions).
    /// `rpc.system`: `gbgbridge` on request spans.
    public static let rpcSystem = Self(rawValue: "rpc.system")
    /// `rpc.method`: the action.
    public static let rpcMethod = Self(rawValue: "rpc.method")
    /// `error.type`: the error code, or `unanswered`, on failed requests.
    public static let errorType = Self(rawValue: "error.type")

    // Spans and events (ours).
    /// The connection id.
    public static let connection = Self(rawValue: "bridgescope.connection")
    /// The action.
    public static let action = Self(rawValue: "bridgescope.action")
    /// The correlationId.
    public static let correlationId = Self(rawValue: "bridgescope.correlation_id")
    /// The final status (`success`, `error`, ...), `no-status` or `unanswered`.
    public static let status = Self(rawValue: "bridgescope.status")
    /// The final response's `error.code`.
    public static let errorCode = Self(rawValue: "bridgescope.error.code")
    /// The final response's `error.recoverable`.
    public static let recoverable = Self(rawValue: "bridgescope.error.recoverable")
    /// True when the answer was `error` with code `BUSY`.
    public static let busy = Self(rawValue: "bridgescope.busy")
    /// True when `late-response` fired on the request.
    public static let late = Self(rawValue: "bridgescope.late")
    /// True when no final response came by the end of the session.
    public static let unanswered = Self(rawValue: "bridgescope.unanswered")
    /// The step's detail (document side, journey status, error message).
    public static let detail = Self(rawValue: "bridgescope.detail")
    /// Record numbers: the request or event, then its responses.
    public static let records = Self(rawValue: "bridgescope.records")
    /// `w2h` or `h2w`.
    public static let direction = Self(rawValue: "bridgescope.direction")
    /// Rule ids that fired on the step.
    public static let rules = Self(rawValue: "bridgescope.rules")
    /// The journey's outcome state (`complete`, `error`, `incomplete`, `none`) and detail.
    public static let journeyOutcome = Self(rawValue: "bridgescope.journey.outcome")
    /// See ``journeyOutcome``.
    public static let journeyDetail = Self(rawValue: "bridgescope.journey.detail")
    /// Requests, unanswered requests, web and host messages of the journey.
    public static let journeyRequests = Self(rawValue: "bridgescope.journey.requests")
    /// See ``journeyRequests``.
    public static let journeyUnanswered = Self(rawValue: "bridgescope.journey.unanswered")
    /// See ``journeyRequests``.
    public static let journeyWebMessages = Self(rawValue: "bridgescope.journey.web_messages")
    /// See ``journeyRequests``.
    public static let journeyHostMessages = Self(rawValue: "bridgescope.journey.host_messages")
    /// Journey steps past the analyzer's cap: their requests have no span.
    public static let journeyStepsOmitted = Self(rawValue: "bridgescope.journey.steps_omitted")
    /// On a root whose events take more than one span: all its events (journey events,
    /// capture events and findings on the root).
    public static let journeyEvents = Self(rawValue: "bridgescope.journey.events")
    /// On such a root and its `journey.events` spans: how many spans hold its events.
    public static let journeyEventSpans = Self(rawValue: "bridgescope.journey.event_spans")
    /// On a `journey.events` span: which of them (2 for the first; the root is 1).
    public static let journeyEventPart = Self(rawValue: "bridgescope.journey.event_part")
    /// On a request span cut short: why (`open-request-limit`: sent while the analyzer's
    /// open-request limit was reached on its connection; it ends when sent, unpaired).
    public static let truncated = Self(rawValue: "bridgescope.truncated")
    /// Finding events: rule id, slug, severity, message.
    public static let findingRule = Self(rawValue: "bridgescope.finding.rule")
    /// See ``findingRule``.
    public static let findingSlug = Self(rawValue: "bridgescope.finding.slug")
    /// See ``findingRule``.
    public static let findingSeverity = Self(rawValue: "bridgescope.finding.severity")
    /// See ``findingRule``.
    public static let findingMessage = Self(rawValue: "bridgescope.finding.message")
}
