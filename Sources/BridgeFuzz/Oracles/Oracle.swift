import BridgeModel

/// A named check the fuzzer runs on every case. An open set: a finding file names its
/// oracle by this spelling, and a later version may add more.
public struct Oracle: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The spelling used in finding file names, reports and `--format json`.
    public let rawValue: String
    /// Wraps a spelling.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The spelling.
    public var description: String { rawValue }
    /// Orders by spelling.
    public static func < (a: Oracle, b: Oracle) -> Bool { a.rawValue < b.rawValue }

    /// The target trapped, crashed or exited while running the case (worker died by a
    /// signal; over the wire: the host process died or dropped the connection).
    public static let crash = Oracle(rawValue: "crash")
    /// The target did not finish the case in time (worker heartbeat stopped).
    public static let hang = Oracle(rawValue: "hang")
    /// Every well-formed request gets exactly one final response, with its action, within
    /// its deadline; `INVALID_REQUEST` exactly when PROTOCOL.md §4 says; nothing
    /// unsolicited.
    public static let oneResponse = Oracle(rawValue: "one-response")
    /// Every host-to-web message decodes with zero findings (the rule catalogue, direction
    /// host to web) and holds no raw newline.
    public static let hostOutputRules = Oracle(rawValue: "host-output-rules")
    /// At most one active capture per typed slot; a second one is answered `BUSY`, and
    /// `BUSY` is only answered when the slot (or the pending limit) is really busy.
    static let oneCapturePerSlot = Oracle(rawValue: "one-capture-per-slot")
    /// `capability.query` answers agree with the scenario and the toggles applied so far.
    public static let capabilityQuery = Oracle(rawValue: "capability-query")
    /// Once the web side goes quiet, the host's pending requests and timers drain to
    /// nothing (in-process only).
    static let pendingDrains = Oracle(rawValue: "pending-drains")
    /// decode → encode → decode gives the same envelope, and parse → write → parse the same
    /// JSON value; a message decoded with zero findings is accepted by `EnvelopeEncoder`
    /// and comes out byte-identical to the writer's output.
    public static let roundTrip = Oracle(rawValue: "round-trip")
    /// BridgeJSON and Foundation's `JSONSerialization` agree on accepting the message,
    /// except for the documented known differences (``JSONAgreement``).
    public static let jsonAgreement = Oracle(rawValue: "json-agreement")

    /// Every oracle, in report order.
    public static let all: [Oracle] = [
        .crash, .hang, .oneResponse, .hostOutputRules, .oneCapturePerSlot, .capabilityQuery, .pendingDrains,
        .roundTrip, .jsonAgreement,
    ]

    /// Oracles that can be judged over the wire against a black-box host.
    static let overTheWire: [Oracle] = [
        .crash, .oneResponse, .hostOutputRules, .oneCapturePerSlot, .capabilityQuery, .roundTrip, .jsonAgreement,
    ]
}

/// One failed check: the oracle, a stable signature (findings with the same oracle and
/// signature are one bug and kept once) and a sentence.
public struct Violation: Sendable, Hashable, CustomStringConvertible {
    /// The oracle that failed.
    public var oracle: Oracle
    /// Short, stable, input-independent description used to deduplicate, e.g.
    /// `second-final-response camera.document.capture`.
    public var signature: String
    /// What exactly happened, naming ids, steps and values.
    public var message: String
    /// The rule broken with its PROTOCOL.md section, when the model named it.
    public var rule: String?

    /// Creates a violation.
    public init(_ oracle: Oracle, signature: String, _ message: String) {
        self.oracle = oracle
        self.signature = signature
        self.message = message
    }

    /// The violation the protocol model found: the obligation decides the oracle
    /// (BUSY rules: ``Oracle/oneCapturePerSlot``; the scenario and the query's shape:
    /// ``Oracle/capabilityQuery``; the rest: ``Oracle/oneResponse``).
    init(_ v: ModelViolation) {
        let oracle: Oracle
        switch v.obligation {
        case .busyWhileServing, .busyOnlyWhenBusy: oracle = .oneCapturePerSlot
        case .knownConfiguration, .capabilityShape: oracle = .capabilityQuery
        default: oracle = .oneResponse
        }
        self.init(oracle, signature: v.signature, v.message)
        self.rule = "PROTOCOL.md \(v.obligation.section): \(v.obligation.sentence)"
    }

    /// The deduplication key: `oracle signature`.
    public var key: String { "\(oracle.rawValue) \(signature)" }

    /// `oracle: message`.
    public var description: String { "\(oracle): \(message)" }

    /// The rule of the protocol the host's answer breaks, with its PROTOCOL.md section: a
    /// finding names one, or it is not a finding (docs/FUZZING.md). The protocol model's
    /// violations carry their obligation's (``rule``, kept when a worker or job reports
    /// one); the others are named by their oracle.
    public var protocolRule: String {
        if let rule { return rule }
        switch oracle {
        case .crash: return "PROTOCOL.md §7: no crash on any input"
        case .hang: return "PROTOCOL.md §7: no hang on any input"
        case .hostOutputRules: return "PROTOCOL.md §1: every host message is a valid envelope (the rules named)"
        case .pendingDrains: return "PROTOCOL.md §2: every request is answered, so nothing stays pending (reference host)"
        case .roundTrip, .jsonAgreement: return "docs/JSON.md: the parser's own contract (in-process)"
        default: return "PROTOCOL.md"
        }
    }
}
