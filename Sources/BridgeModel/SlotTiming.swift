import BridgeHost
import BridgeProtocol

/// When the host read each message, and so whether a capture was served while its slot
/// was busy (PROTOCOL.md §2) or refused BUSY while nothing was: checked at the end of a
/// branch, once every answer is assigned to a request.
///
/// A host reads messages in the order they were sent, each at or after its sending and
/// before its first answer. With exact timing (in-process) it reads each the moment it
/// is sent. Over a wire the read times are free within those bounds, and the earliest
/// read times that fit the served captures are the best for every other constraint:
/// served capture B needs every earlier capture A of its slot that held the slot to have
/// been answered before B was read, and a BUSY needs some earlier holder to be answered
/// after it was read. So the check walks the messages in send order keeping the earliest
/// possible read time, which makes it exact, not a heuristic on times in milliseconds.
/// Positions are event indices: read time `r` means "just after event r".
struct SlotTiming {
    let exact: Bool
    let strict: Bool
    let heldSlots: Set<SlotKind>
    let pendingLimit: Int
    let cutShort: Bool

    typealias Instance = ExplanationSearch.Instance

    /// Answers that say a request was refused, not served.
    static let refusals: Set<ErrorCode> = [.busy, .invalidRequest, ErrorCode(rawValue: "VERSION_MISMATCH"),
                                            .unsupportedAction, .capabilityUnavailable]

    /// Whether `i` may have held its slot: not refused (BUSY, INVALID_REQUEST,
    /// unsupported…); unanswered in a run cut short.
    func holds(_ i: Instance) -> Bool {
        guard i.slot != nil, !i.isRejection else { return false }
        guard i.final != nil else { return cutShort && i.request.mustAnswer }
        if i.status == .unsupported { return false }
        return !(i.status == .error && i.code.map(Self.refusals.contains) == true)
    }

    /// Whether `i` was surely served: a success (PROTOCOL.md §7: the overlap is observable
    /// when the second capture is answered with success before the first); with the
    /// strict model, any answer that held the slot.
    func served(_ i: Instance) -> Bool {
        guard holds(i), i.final != nil else { return false }
        return strict || i.status == .success
    }

    /// The index of the event that released the slot (Int.max: never answered).
    func release(_ i: Instance) -> Int { i.final ?? Int.max }

    func check(_ instances: [Instance], step: (Int) -> Int, quote: (String) -> String) -> ModelViolation? {
        var byMessage: [(event: Int, members: [Int])] = []
        for (n, i) in instances.enumerated() {
            if byMessage.last?.event == i.event { byMessage[byMessage.count - 1].members.append(n) } else { byMessage.append((i.event, [n])) }
        }
        // Per slot: the holder sent so far that is released last.
        var lastRelease: [SlotKind: Int] = [:]
        // Per slot: the answered holder sent so far that is released last (an unanswered
        // one, in a run cut short, explains a BUSY but proves no overlap).
        var lastAnswered: [SlotKind: Int] = [:]
        var read = -1
        var pushedBy: (served: Int, holder: Int)?
        for (event, members) in byMessage {
            read = max(read, event)
            for n in members where served(instances[n]) {
                let b = instances[n]
                guard let a = lastAnswered[b.slot!], release(instances[a]) > event else { continue }
                if exact { return concurrent(instances, served: n, holder: a, step: step, quote: quote) }
                if release(instances[a]) > read { read = release(instances[a]); pushedBy = (n, a) }
            }
            for n in members {
                let b = instances[n]
                if let first = b.firstAnswer, first <= read, let (served, holder) = pushedBy {
                    return concurrent(instances, served: served, holder: holder, step: step, quote: quote)
                }
                guard b.isBusy, !b.isRejection, let slot = b.slot else { continue }
                let held = lastRelease[slot].map { release(instances[$0]) > read } ?? false
                if held || heldSlots.contains(slot) || b.openCount >= pendingLimit { continue }
                return ModelViolation(.busyOnlyWhenBusy, "unjustified-busy \(slot)",
                                      "\(slot.action) \(quote(b.request.id)) (step \(step(b.event))) was answered BUSY while no other \(slot) capture can have been in progress: every earlier one was answered before it was sent",
                                      evidence: [b.event, b.final!])
            }
            for n in members where holds(instances[n]) {
                let slot = instances[n].slot!
                if lastRelease[slot].map({ release(instances[$0]) < release(instances[n]) }) ?? true { lastRelease[slot] = n }
                if instances[n].final != nil, lastAnswered[slot].map({ release(instances[$0]) < release(instances[n]) }) ?? true {
                    lastAnswered[slot] = n
                }
            }
        }
        return nil
    }

    func concurrent(_ instances: [Instance], served n: Int, holder a: Int, step: (Int) -> Int, quote: (String) -> String) -> ModelViolation {
        let b = instances[n], h = instances[a]
        let slot = b.slot!
        let when = h.final.map { _ in "answered after it" } ?? "never answered"
        return ModelViolation(.busyWhileServing, "concurrent-captures \(slot)",
                              "\(slot.action) \(quote(b.request.id)) (step \(step(b.event))) was served while \(quote(h.request.id)) (step \(step(h.event))) still held \(slot): the earlier capture was \(when) and no order in which the host read them lets one end before the other began; expected BUSY",
                              evidence: [h.event, b.event] + [b.final, h.final].compactMap { $0 })
    }
}
