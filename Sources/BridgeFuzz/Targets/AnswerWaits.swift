import BridgeProtocol

/// The request objects of a case that still owe their final answer, each with its own
/// deadline: what a black-box target waits for before it ends a case.
///
/// It counts request objects, not ids. Two requests under one id (a case that reuses an
/// id still in use) owe two answers: a host that rejects the second BUSY at once still
/// owes the first, and the case waits for it. Keyed by id alone, the BUSY ended the wait,
/// the case closed before the first answer came, and the oracles judged the BUSY
/// unjustified (a false finding on a correct host, seen on a loaded machine).
///
/// But a host may also ignore a request whose id is already open (PROTOCOL.md §7; the
/// reference host does), so such a request does not hold the case: it is *optional*, and
/// the case ends once the requests before it are answered. A rejection (`BUSY` or
/// `INVALID_REQUEST`, the two §7 allows) under an id with an optional request settles the
/// optional one, so the first stays owed. Before this, a case with a reused open id waited
/// for the ignored request to its deadline (30 s): three of the 21 seeds took 30 s each,
/// and a 100-case run against the reference host took 224 s instead of 8.
///
/// A request object with duplicate `correlationId` keys carries several ids: an answer
/// to any of them settles it (which one the host read is its choice, §7).
struct AnswerWaits: Sendable {
    struct Entry: Sendable {
        var ids: [String]
        var deadline: ContinuousClock.Instant
        /// Sent while a request under one of its ids was open: the host may ignore it.
        var optional = false
    }

    /// In send order, so an answer settles the earliest request it can belong to.
    private(set) var entries: [Entry] = []

    /// Whether nothing holds the case: every request still open is optional.
    var nothingOwed: Bool { !entries.contains { !$0.optional } }

    /// Whether some request under `id` still owes its final answer.
    func contains(_ id: String) -> Bool { entries.contains { $0.ids.contains(id) } }

    /// A request object carrying `ids` (one, or more with duplicate keys), due by `deadline`;
    /// optional when one of its ids is open.
    /// `reusedOpenId`: the sender knew one of its ids was open when it sent it (a page's
    /// send is recorded after the fact, by when the earlier one may have been answered).
    mutating func add(_ ids: [String], deadline: ContinuousClock.Instant, reusedOpenId: Bool = false) {
        guard !ids.isEmpty else { return }
        let reused = reusedOpenId || entries.contains { $0.ids.contains(where: ids.contains) }
        entries.append(Entry(ids: ids, deadline: deadline, optional: reused))
    }

    /// A final answer carrying `id`: settles the earliest request under it, or, for a
    /// `rejection`, the earliest optional one under it when there is one. False when none
    /// was waiting (an answer that came before its send was recorded, or a stray).
    @discardableResult
    mutating func answered(_ id: String, rejection: Bool = false) -> Bool {
        if rejection, let i = entries.firstIndex(where: { $0.optional && $0.ids.contains(id) }) {
            entries.remove(at: i)
            return true
        }
        guard let i = entries.firstIndex(where: { $0.ids.contains(id) }) else { return false }
        entries.remove(at: i)
        return true
    }

    /// Drops the requests whose deadline passed by `now`; true when any did.
    mutating func expire(at now: ContinuousClock.Instant) -> Bool {
        let before = entries.count
        entries.removeAll { $0.deadline <= now }
        return entries.count < before
    }
}

extension AnswerWaits {
    /// Whether a decoded final answer is one of the two rejections §7 allows for a request
    /// reusing an open id (an error coded `BUSY` or `INVALID_REQUEST`).
    static func isRejection(_ d: DecodeResult) -> Bool {
        guard d.partial.status == .error, let code = d.envelope?.payload.error?.code else { return false }
        return code == .busy || code == .invalidRequest
    }
}
