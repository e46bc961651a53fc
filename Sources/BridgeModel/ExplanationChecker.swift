import BridgeJSON
import BridgeProtocol

/// Judges a ``HostHistory`` by explanation: it searches for *some* legal host, in the
/// sense of ``HostModel``, that could have produced what was observed (as Porcupine and
/// Knossos search for a legal ordering of a concurrent history), and reports a
/// violation only when none exists. A history whose explanations cannot be decided
/// within ``HostModel/searchLimit`` steps is undecided, never a violation.
///
/// The search (``ExplanationSearch``) walks the events in order. It branches where the
/// model is nondeterministic: how a message with duplicate keys was read, what a host did
/// with a request reusing an id, and which of two open requests sharing an id an answer
/// belongs to. Each answer then picks among the ways its request may be answered; what
/// only the whole history shows (when the host read each message, and so whether a
/// capture was served while its slot was busy) is checked at the end of each branch
/// (``SlotTiming``). docs/CONFORMANCE.md, "The model", is the reader's version.
public struct ExplanationChecker: Sendable {
    /// The model.
    public var model: HostModel
    let decoder = EnvelopeDecoder()

    /// Creates a checker.
    public init(model: HostModel) {
        self.model = model
    }

    /// The verdict on `history`.
    public func check(_ history: HostHistory) -> ModelVerdict {
        var search = ExplanationSearch(model: model, history: history, decoder: decoder)
        return search.run()
    }
}
