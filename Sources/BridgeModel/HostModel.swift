import BridgeJSON
import BridgeProtocol

/// The host's observable obligations with every choice PROTOCOL.md §7 leaves open made
/// explicit as nondeterminism: the model ``ExplanationChecker`` searches. The lenient
/// model (the default) lets a host make each choice any legal way; ``strict`` narrows it
/// to the reference host's choices, which is the contract only when we test our host.
public struct HostModel: Sendable {
    /// Only the reference host's choices (PROTOCOL.md §7, "ours").
    public var strict: Bool
    /// Requests open at once beyond which a host may answer BUSY for lack of room (nil:
    /// unknown, taken as 50, Android's warning level, PROTOCOL.md §2).
    public var pendingLimit: Int?
    /// The requester's timeout for an action, judged only with exact timing (nil: not
    /// judged).
    public var deadline: (@Sendable (_ action: String) -> Int64)?
    /// What the host's known configuration (a scenario of our host) says about an
    /// answer: called with the request, the event index it was sent at, the number of
    /// requests open then, and the final response; returns the violation, if any.
    public var configuration: (@Sendable (_ request: Envelope, _ sentAt: Int, _ openCount: Int, _ response: Envelope) -> ModelViolation?)?
    /// The custom capability ids the host is known to have (for stable finding
    /// signatures: `custom` rather than `other`).
    public var customActions: Set<String> = []
    /// How many search steps the checker may take before it calls a history undecided.
    public var searchLimit: Int = 200_000

    /// Creates a model.
    public init(strict: Bool = false, pendingLimit: Int? = nil) {
        self.strict = strict
        self.pendingLimit = pendingLimit
    }

    /// The pending limit in force.
    var effectivePendingLimit: Int { pendingLimit ?? 50 }
}
