/// Decides, for one connection, what to send when: a state machine over a
/// ``ConnectionPlan`` that does no I/O and reads no clock (STYLE.md habit 2). A driver
/// asks ``next(now:)``, sends or waits as told, and reports what it sent and received;
/// the same scheduler runs on the real clock (WebSocket, stdio, in-process) and on
/// virtual time (the in-process reference host).
///
/// Causality: a message that was sent after some responses had arrived in the recording
/// is sent only once those responses have arrived in the replay (paired by
/// correlationId), or the replay's response timeout has passed for them.
public struct ReplayScheduler: Sendable {
    /// What the driver should do next.
    public enum Step: Sendable, Hashable {
        /// Send `plan.sends[index]` now; report it with ``didSend(_:at:)``. `due` is when
        /// it was meant to go (the driver's lateness is `now - due`).
        case send(index: Int, due: Int64)
        /// Wait for a message from the target, or until `until` (ns), whichever is first.
        case wait(until: Int64)
        /// Nothing more to do: close the connection.
        case finished
    }

    /// Times the scheduler keeps.
    public struct Timing: Sendable, Hashable {
        /// How long to wait for a response before giving up on it (ns). Default 10 s.
        public var responseTimeout: Int64
        /// Longest wait after the last message for the recorded tail of the connection
        /// (host events, late responses) (ns). Default 1 s.
        public var linger: Int64

        /// Creates timing settings.
        public init(responseTimeout: Int64 = 10_000_000_000, linger: Int64 = 1_000_000_000) {
            self.responseTimeout = responseTimeout
            self.linger = linger
        }
    }

    /// The plan being replayed.
    public let plan: ConnectionPlan
    /// The pacing.
    public let pacing: ReplayPacing
    /// The timing settings.
    public let timing: Timing
    /// What was sent and received, arranged for comparison.
    public private(set) var observed = Exchange(keepingTimeline: true)
    /// For each send so far: when it went and when it was due (ns).
    public private(set) var sendTimes: [(actual: Int64, due: Int64)] = []
    /// When the target closed the connection, if it did.
    private(set) var closedAt: Int64?
    /// Slots that were given up on (timed out).
    public private(set) var timedOut = 0

    private let start: Int64
    private var resolved: [Int64?]
    private var resolvedPrefix = 0

    /// Starts scheduling at `start` (ns: when the connection opened).
    public init(plan: ConnectionPlan, pacing: ReplayPacing, timing: Timing = Timing(), start: Int64) {
        self.plan = plan
        self.pacing = pacing
        self.timing = timing
        self.start = start
        resolved = Array(repeating: nil, count: plan.slots.count)
    }

    /// Whether every planned message was sent.
    var allSent: Bool { sendTimes.count == plan.sends.count }

    /// What to do at `now`.
    public mutating func next(now: Int64) -> Step {
        if closedAt != nil { return .finished }
        let index = sendTimes.count
        if index < plan.sends.count {
            let send = plan.sends[index]
            if let deadline = resolve(upTo: send.requiredSlots, now: now) { return .wait(until: deadline) }
            let due = dueTime(index)
            return due <= now ? .send(index: index, due: due) : .wait(until: due)
        }
        if let deadline = resolve(upTo: plan.slots.count, now: now) { return .wait(until: deadline) }
        let end = endTime()
        return now < end ? .wait(until: end) : .finished
    }

    /// The driver sent `plan.sends[index]` at `time` (`index` must be the one ``next(now:)`` gave).
    ///
    /// `crossed` is what reached the host when a transport changed it (a WebView's bridge,
    /// docs/WEBVIEW-TARGETS.md): the host is judged on that; nil, nothing could be sent.
    public mutating func didSend(_ index: Int, at time: Int64, due: Int64? = nil, crossed: [UInt8]?? = .none) {
        precondition(index == sendTimes.count, "sends must be reported in order")
        sendTimes.append((time, due ?? time))
        let message = plan.sends[index].message
        switch crossed {
        case .none:
            observed.sent(message, at: time)
        case .some(.none):
            break
        case .some(.some(let bytes)):
            observed.sent(bytes == message.bytes ? message
                          : RecordedMessage(seq: message.seq, time: message.time, direction: message.direction, bytes: bytes), at: time)
        }
    }

    /// A message arrived from the target at `time`.
    public mutating func received(_ bytes: [UInt8], at time: Int64) {
        received(RecordedMessage(time: time, direction: .hostToWeb, bytes: bytes), at: time)
    }

    /// A message (already read) arrived from the target at `time`.
    public mutating func received(_ message: RecordedMessage, at time: Int64) {
        guard let (key, ordinal) = observed.received(message, at: time) else { return }
        if let slot = plan.slotIndex[ConnectionPlan.SlotKey(key: key, ordinal: ordinal)], resolved[slot] == nil {
            resolved[slot] = time
        }
        if message.isFinalResponse, let all = plan.slotsOfKey[key] {
            // Nothing more will come for this request: its remaining slots are settled.
            for s in all where resolved[s] == nil { resolved[s] = time }
        }
    }

    /// The target closed the connection (or the link failed) at `time`.
    public mutating func targetClosed(at time: Int64) {
        if closedAt == nil { closedAt = time }
    }

    /// Settles slots `0..<count` that are resolved or past their deadline; returns the
    /// earliest deadline of one still open, or nil when all are settled.
    private mutating func resolve(upTo count: Int, now: Int64) -> Int64? {
        while resolvedPrefix < count && resolved[resolvedPrefix] != nil { resolvedPrefix += 1 }
        var earliest: Int64?
        var i = resolvedPrefix
        while i < count {
            if resolved[i] == nil {
                let deadline = sendTimes[plan.slots[i].request].actual + timing.responseTimeout
                if deadline <= now {
                    resolved[i] = deadline
                    timedOut += 1
                } else {
                    earliest = min(earliest ?? deadline, deadline)
                }
            }
            i += 1
        }
        while resolvedPrefix < count && resolved[resolvedPrefix] != nil { resolvedPrefix += 1 }
        return earliest
    }

    /// When send `index` is due under the pacing. Whatever the pacing, a message that
    /// the recording sent while a request was left unanswered waits the silence the
    /// recording shows (capped by the response timeout): sending it at once would change
    /// what the host does (a journey.error cancels a pending nfc.read) and hide an answer
    /// the recording never had (issue 16: `replay nfc-never-answered.bsz` showed the
    /// extra response only with `--pace recorded`).
    private func dueTime(_ index: Int) -> Int64 {
        let paced = pacedTime(index)
        let send = plan.sends[index]
        var due = paced
        for j in 0..<index {
            guard let key = plan.sends[j].key, plan.slotsOfKey[key]?.isEmpty ?? true else { continue }
            let silence = min(max(0, send.offset - plan.sends[j].offset), timing.responseTimeout)
            due = max(due, sendTimes[j].actual + silence)
        }
        return due
    }

    private func pacedTime(_ index: Int) -> Int64 {
        guard !pacing.isASAP else { return start }
        let send = plan.sends[index]
        var due: Int64
        if index == 0 {
            due = start + pacing.scale(send.offset)
        } else {
            let previous = plan.sends[index - 1]
            due = sendTimes[index - 1].actual + pacing.scale(send.offset - previous.offset)
        }
        if send.requiredSlots > 0, let at = resolved[send.requiredSlots - 1] {
            let anchor = plan.slots[send.requiredSlots - 1]
            due = max(due, at + pacing.scale(send.offset - anchor.offset))
        }
        return due
    }

    /// When the connection may close: after the recorded tail, counted from the last
    /// send, capped by the linger (or, while recorded host messages are still missing,
    /// by the longer of the linger and the response timeout).
    private func endTime() -> Int64 {
        let last = sendTimes.last?.actual ?? start
        let tail = pacing.scale(plan.tail)
        let missing = plan.expected.hostGroups.contains { g in
            (observed.hostMessages[g]?.count ?? 0) < (plan.expected.hostMessages[g]?.count ?? 0)
        }
        return last + min(tail, missing ? max(timing.linger, timing.responseTimeout) : timing.linger)
    }
}
