/// The request objects of a case that still owe their final answer, each with its own
/// deadline: what a black-box target waits for before it ends a case.
///
/// It counts request objects, not ids. Two requests under one id (a case that reuses an
/// id still in use) owe two answers: a host that rejects the second BUSY at once still
/// owes the first, and the case waits for it. Keyed by id alone, the BUSY ended the wait,
/// the case closed before the first answer came, and the oracles judged the BUSY
/// unjustified (a false finding on a correct host, seen on a loaded machine).
///
/// A request object with duplicate `correlationId` keys carries several ids: an answer
/// to any of them settles it (which one the host read is its choice, §7).
struct AnswerWaits: Sendable {
    struct Entry: Sendable {
        var ids: [String]
        var deadline: ContinuousClock.Instant
    }

    /// In send order, so an answer settles the earliest request it can belong to.
    private(set) var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }

    /// Whether some request under `id` still owes its final answer.
    func contains(_ id: String) -> Bool { entries.contains { $0.ids.contains(id) } }

    /// A request object carrying `ids` (one, or more with duplicate keys), due by `deadline`.
    mutating func add(_ ids: [String], deadline: ContinuousClock.Instant) {
        guard !ids.isEmpty else { return }
        entries.append(Entry(ids: ids, deadline: deadline))
    }

    /// A final answer carrying `id`: settles the earliest request under it. False when
    /// none was waiting (an answer that came before its send was recorded, or a stray).
    @discardableResult
    mutating func answered(_ id: String) -> Bool {
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
