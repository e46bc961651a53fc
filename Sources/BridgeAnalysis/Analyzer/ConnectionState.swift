import BridgeProtocol

/// A request waiting for its final response.
struct OpenRequest {
    var id: String
    var action: String
    /// ``action``'s kind.
    var kind: ActionKind
    var sent: Int64
    var record: Int
    var acknowledged: Int64?
    var stepIndex: Int?
    /// Set when the request arrived while another request held its typed slot: the
    /// host must answer it BUSY.
    var busyWith: String?
    /// The request's data, for `response-not-consumed`.
    var dataKey: RequestData
    /// `data.side` of a document capture, as far as `dual-capture-incomplete` reads it:
    /// a success adds it to ``ConnectionState/capturedSides``.
    var sides: CaptureSides = []
}

/// A remembered ``ConnectionState/capability(for:kind:)``.
enum CapabilityLookup {
    case notLookedUp
    case none
    case found(id: String, info: CapabilityInfo)
}

/// What the latest capability.query answer said about one capability.
struct CapabilityInfo: Equatable {
    var supported: Bool?
    var version: String?
    var permissionState: String?
}

/// A remembered `success` answer, for `response-not-consumed`.
struct SuccessInfo {
    var id: String
    var dataKey: RequestData
    var sent: Int64
    var record: Int
}

/// Everything the analyzer keeps about one connection. Memory grows with open
/// requests; everything else is capped (``AnalyzerConfiguration/Limits``).
struct ConnectionState {
    let id: String
    var firstTime: Int64
    var lastTime: Int64
    var webMessages = 0
    var hostMessages = 0
    var requests = 0
    var firstRequest: (record: Int, id: String, action: String)?
    /// The connection's last request, kept past the step cap (the journey's end says it).
    var lastRequest: (record: Int, id: String, action: String)?
    var reportedCaptureBeforeQuery = false

    /// Open requests and answered ids (``RequestIDs``).
    var ids: RequestIDs
    /// Active request per typed slot action.
    var activeSlot = ActionMemory<String>()
    var busyTimes: [String: [Int64]] = [:]
    var inBusyStorm: Set<String> = []
    var overPendingLimit = false

    var querySent = false
    var capabilities: [String: CapabilityInfo]? {
        didSet { capabilityByKind = [] }
    }
    /// What ``capability(for:kind:)`` found for each known action kind since the latest
    /// answer (empty: nothing looked up yet): a request of a known action then hashes
    /// nothing.
    var capabilityByKind: [CapabilityLookup] = []
    var capabilitySignature: String?
    /// The bytes of the last capability.query answer's data read on the fast path: an
    /// answer with the same bytes changes nothing (nil after one read otherwise).
    var lastCapabilityData: ArraySlice<UInt8>?
    /// `hostVersion` and `environment` of the latest successful capability.query answer.
    var hostVersion: String?, environment: String?
    var lifecycleSinceQuery = false

    var hostReadyCount = 0
    var firstHostReadyRecord: Int?
    var requestBeforeReady: (record: Int, id: String, time: Int64)?
    /// The last envelope timestamp per direction: the two of the protocol in fields of
    /// their own (no hashing of a `Direction` per message), any other in a dictionary.
    var lastWebTimestamp: Int64?, lastHostTimestamp: Int64?
    var lastOtherTimestamp: [Direction: Int64] = [:]

    var lastSuccess = ActionMemory<SuccessInfo>()
    var lastFatal = ActionMemory<(id: String, record: Int)>()

    /// The sides requested and captured that `dual-capture-incomplete` reads.
    var requestedSides: CaptureSides = []
    var capturedSides: CaptureSides = []

    var steps: [JourneyStep] = []
    var stepsOmitted = 0
    var outcome: JourneyOutcome?

    // Streaming (``JourneySink``, ConnectionState+Streaming.swift); unused otherwise.
    /// Whether the steps are handed to the sink as they settle instead of kept in ``steps``.
    var streams = false
    /// Steps made and not yet handed over, by absolute index.
    var held: [Int: JourneyStep] = [:]
    /// Steps made so far (the next step's index).
    var madeSteps = 0
    /// Record numbers of held requests (the request and its responses) to their step.
    var owner: [Int: Int] = [:]
    /// Steps ready to hand over, in order.
    var settled: [Int] = []
    /// Closed requests held back: the first request, the latest.
    var heldBack: [Int] = []
    /// Stored findings waiting with the held request they go on.
    var stepFindings: [Int: [(order: Int, finding: ReportFinding)]] = [:]
    /// Stored findings of the journey's root (streamed), or all of the journey's (kept).
    var journeyFindings: [(order: Int, finding: ReportFinding)] = []

    init(id: String, time: Int64, rememberIDs: Int) {
        self.id = id
        self.firstTime = time
        self.lastTime = time
        self.ids = RequestIDs(rememberIDs: rememberIDs)
    }

    /// Appends a step unless the cap is reached; returns its index. The step is built
    /// only when kept (a long session drops most: no arrays made for them).
    mutating func addStep(_ step: @autoclosure () -> JourneyStep, cap: Int) -> Int? {
        if streams { return holdStep(step()) }
        guard steps.count < cap else {
            stepsOmitted += 1
            return nil
        }
        steps.append(step())
        return steps.count - 1
    }

    /// The capability a request of `action` (of kind `kind`) uses, by the latest
    /// capability.query answer, and what the answer said of it; nil when there is no
    /// answer or it does not list the capability
    /// (``SessionAnalyzer/capabilityID(for:kind:in:)``).
    mutating func capability(for action: String, kind: ActionKind) -> (id: String, info: CapabilityInfo)? {
        guard let caps = capabilities else { return nil }
        func look() -> (id: String, info: CapabilityInfo)? {
            guard let id = SessionAnalyzer.capabilityID(for: action, kind: kind, in: caps), let info = caps[id] else { return nil }
            return (id, info)
        }
        guard kind != .other else { return look() }
        if capabilityByKind.isEmpty {
            capabilityByKind = Array(repeating: .notLookedUp, count: ActionKind.count)
        }
        switch capabilityByKind[Int(kind.rawValue)] {
        case .found(let id, let info): return (id, info)
        case .none: return nil
        case .notLookedUp:
            let found = look()
            capabilityByKind[Int(kind.rawValue)] = found.map { .found(id: $0.id, info: $0.info) } ?? .none
            return found
        }
    }

    /// Marks a rule on a step.
    mutating func mark(_ index: Int?, _ rule: RuleID) {
        guard let index, hasStep(index), !self[step: index].findings.contains(rule) else { return }
        self[step: index].findings.append(rule)
    }
}
