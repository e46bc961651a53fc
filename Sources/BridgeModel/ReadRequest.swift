import BridgeHost
import BridgeJSON
import BridgeProtocol

/// A request as a host may have read one message, and the ways it may be answered. The
/// answer that arrives picks the way (``ExplanationSearch``); one message can also be
/// read as requests under different ids (``Reading``), which the search tries in turn.
struct ReadRequest: Sendable {
    /// How the host took the message.
    enum Kind: Sendable {
        /// A well-formed request, routed to its action.
        case routed(Envelope)
        /// A malformed request, answered error with one of `codes`.
        case invalid(codes: Set<ErrorCode>)
        /// A malformed request routed as far as it can be: any answer with its action.
        case routedAsFar
        /// A request rejected because its id is in use or was answered: error with one
        /// of `codes`, any action.
        case rejected(codes: Set<ErrorCode>)
        /// Bytes this project's parser refuses, read as a request by another parser: any
        /// answer.
        case loose
    }

    /// One way of answering it.
    struct Way: Sendable {
        var kind: Kind
        /// The actions its final answer may carry, the reference host's first (empty: any).
        var actions: [String]
        /// The typed slot it occupies if served this way.
        var slot: SlotKind?
        /// The §7 choice this way makes (nil: the reference host's).
        var choice: LegalChoice?
    }

    /// The correlationId its answer bears.
    var id: String
    /// Exactly one final answer (true) or at most one (false).
    var mustAnswer: Bool
    /// The ways, the reference host's first.
    var ways: [Way]

    /// A request answered one way.
    init(id: String, mustAnswer: Bool = true, _ way: Way) {
        self.id = id
        self.mustAnswer = mustAnswer
        self.ways = [way]
    }

    /// The action in reports.
    var displayAction: String { ways.first?.actions.first ?? "?" }
}

/// One way the host may have read a sent message: the requests it takes from it (none
/// for an event, a response or garbage).
struct Reading: Sendable {
    var requests: [ReadRequest]
    /// The §7 choice this reading makes (nil: the reference host's).
    var choice: LegalChoice?
}
