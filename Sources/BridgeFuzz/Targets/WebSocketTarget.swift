import BridgeModel
import BridgeProtocol
import BridgeTransport
import BridgeHost
import Foundation

/// Any host serving the bridge over WebSocket (`bridgescope host --listen`), one
/// connection per case. A case ends when each well-formed request has its final answer
/// (or its deadline passed) and the connection has been quiet for ``settleMs``; the
/// host's state is per connection, so nothing carries over to the next case.
/// Black-box: real time, ordered (not exact) timing; a refused or
/// dropped connection is a ``Oracle/crash`` finding. Messages that are not UTF-8 or are
/// over 16 MiB are skipped: a text frame cannot carry them (the host would rightly close).
public struct WebSocketTarget: FuzzTarget, ProbingTarget {
    /// The host's URL.
    public let url: WebSocketURL
    /// The scenario the host runs, when known.
    public let scenario: Scenario?
    /// Offer permessage-deflate. Default false: with it, BridgeClient's inflater sometimes
    /// finds the host's first compressed message corrupt and the connection delivers
    /// nothing (about one connection in ten on this machine), which would read as missing
    /// responses. See docs/FUZZING.md, "Known problems".
    public var deflate = false
    /// Longest real wait of one step, taken only while an answer is outstanding (as for
    /// `stdio:`: the oracles judge the order of messages, not the length of pauses).
    /// Default 1 ms.
    public var maxStepDelayMs: Int64 = 1
    /// How long the connection must stay quiet after the last final answer before the
    /// case ends (a second answer sent with the first shows up in it). Default 5 ms.
    var settleMs: Int64 = 5
    /// How long a request may wait for its final answer: PROTOCOL.md §2's timeouts,
    /// stretched to the scenario's latencies; `--response-timeout` replaces them.
    public var responseTimeoutMs: Int64?

    /// Creates the target.
    public init(url: WebSocketURL, scenario: Scenario?) {
        self.url = url
        self.scenario = scenario
    }

    /// The URL.
    public var name: String { url.description }
    /// False.
    public var supportsToggles: Bool { false }

    /// Checker without a pending limit and with the scenario model when known.
    public func checker(oracles: Set<Oracle>) -> TraceChecker {
        var c = TraceChecker(model: scenario.map(CapabilityModel.init), pendingLimit: nil,
                             oracles: oracles.intersection(Oracle.overTheWire))
        c.strict = strict
        c.responseTimeoutMs = responseTimeoutMs
        return c
    }

    /// Judge by this project's choices where PROTOCOL.md §7 leaves one (`--strict`).
    /// Default false: every answer §7 allows is accepted.
    public var strict = false

    package func probe() async throws {
        do {
            try await WebSocketClient.withConnection(to: url, options: .init(connectTimeout: 3)) { _ in }
        } catch {
            throw FuzzError(.target, "\(error)")
        }
    }

    /// What one case's connection has seen, shared by its reader and its sender.
    final class Recorder: @unchecked Sendable {
        let lock = NSLock()
        /// When the case began.
        let start = ContinuousClock.now
        var events: [Trace.Event] = []
        var lastReceived: ContinuousClock.Instant?
        var streamEnded = false
        var cutShort = false
        /// Well-formed requests without a final answer, and each one's deadline.
        var waiting = AnswerWaits()
        /// Ids of what may be a request, until some answer carries them.
        var owed: Set<String> = []
        /// Ids earlier cases sent to a host that outlives its cases (``WebViewTarget``):
        /// a response carrying one that this case did not send is a leftover, not recorded.
        var stale: Set<String> = []
        /// Ids this case sent.
        var caseIds: Set<String> = []
        /// Final answers that came before their send was recorded, counted per id: two
        /// requests under one id answered before either send was recorded are two (kept as
        /// a set, the second send then waited for an answer that had come, to its 30 s
        /// deadline).
        var finallyAnswered: [String: Int] = [:]
        /// Request ids of sends begun and not yet recorded (a page's bridge), counted.
        var inFlight: [String: Int] = [:]
        /// Each reserved place's request ids (put in ``inFlight``), and whether one of them
        /// was open when its send began.
        var reserved: [Int: (ids: Set<String>, reusesOpenId: Bool)] = [:]
        let decoder = EnvelopeDecoder()

        func received(_ bytes: [UInt8], atMs: Int64) {
            let d = decoder.decode(bytes, direction: .hostToWeb)
            lock.lock(); defer { lock.unlock() }
            if d.partial.type == .response, let id = d.partial.correlationId, stale.contains(id), !caseIds.contains(id) { return }
            events.append(.received(bytes: bytes, atMs: atMs))
            lastReceived = .now
            guard d.partial.type == .response, let id = d.partial.correlationId else { return }
            let wasOwed = owed.remove(id) != nil
            if d.partial.status != .acknowledged {
                // An answer that came before its send was recorded (a page's bridge tells
                // what crossed only after the fact): that send then waits for nothing. Only
                // then: a later request reusing an answered id is waited for as any other.
                if !waiting.answered(id, rejection: AnswerWaits.isRejection(d)) && !wasOwed { finallyAnswered[id, default: 0] += 1 }
            }
        }

        /// Records a message sent at step `step`; at `index` of the events (a place kept
        /// when the send began, see ``reserve()``) or at the end.
        func sent(_ bytes: [UInt8], step: Int, atMs: Int64, at index: Int? = nil, deadline: (String) -> ContinuousClock.Instant) {
            let d = decoder.decode(bytes, direction: .webToHost)
            lock.lock(); defer { lock.unlock() }
            // Every request object is answered, whatever else is wrong with it (§7).
            let request = RequestObject(bytes)
            let ids = LooseIds.scan(bytes)
            // Each early answer stands for one send: this one takes at most one per id.
            var taken: Set<String> = []
            func take(_ id: String) {
                guard !taken.contains(id), finallyAnswered[id] != nil else { return }
                taken.insert(id)
                finallyAnswered.decrementOrRemove(id)
            }
            let reusedOpenId = index.flatMap { release($0) } ?? false
            if let r = request {
                if let early = r.ids.first(where: { finallyAnswered[$0] != nil }) {
                    take(early)
                } else {
                    waiting.add(r.ids, deadline: deadline(r.action ?? ""), reusedOpenId: reusedOpenId)
                }
            }
            caseIds.formUnion(ids)
            if let id = d.partial.correlationId { caseIds.insert(id) }
            if d.partial.type == .request {
                owed.formUnion(ids.filter { finallyAnswered[$0] == nil && !taken.contains($0) })
                // Only what may be a request takes an early answer: `"type":"Request"` under
                // d-1 took the answer to the request under d-1 sent after it, which then
                // waited 30 s.
                for id in ids { take(id) }
            }
            if let index, index < events.count {
                events[index] = .sent(step: step, bytes: bytes, atMs: atMs)
            } else {
                events.append(.sent(step: step, bytes: bytes, atMs: atMs))
            }
        }

        /// Keeps a place in the events for a send whose bytes are known only once it is
        /// done (what crossed a page's bridge): answers that arrive meanwhile come after it.
        /// The ids of `sending` (the bytes about to be sent) are this case's from now on: an
        /// id that is not freshened (not plain, e.g. U+200B) and that an earlier case sent
        /// too is answered before its send is recorded, and was dropped as that case's
        /// leftover (the case then waited 30 s for an answer that had come).
        /// A request under an id open at this moment (waited for, or sent before it and
        /// not yet recorded) is optional when its send is recorded (``AnswerWaits``).
        func reserve(atMs: Int64, sending: [UInt8] = []) -> Int {
            // A request object's ids come decoded (escapes too); LooseIds finds the rest.
            let requestIds = Set(RequestObject(sending)?.ids ?? [])
            let ids = LooseIds.scan(sending)
            return lock.withLock {
                caseIds.formUnion(ids)
                caseIds.formUnion(requestIds)
                events.append(.received(bytes: [], atMs: atMs))
                let index = events.count - 1
                let reuses = requestIds.contains { waiting.contains($0) || inFlight[$0] != nil }
                for id in requestIds { inFlight[id, default: 0] += 1 }
                reserved[index] = (requestIds, reuses)
                return index
            }
        }

        /// A reserved place whose send did not happen: its ids are no longer in flight.
        func unreserve(_ index: Int) {
            lock.withLock { _ = release(index) }
        }

        /// Ends a reserved place's send in flight (the lock held); whether its request
        /// reused an open id (nil: no such place).
        private func release(_ index: Int) -> Bool? {
            guard let r = reserved.removeValue(forKey: index) else { return nil }
            for id in r.ids { inFlight.decrementOrRemove(id) }
            return r.reusesOpenId
        }

        var outstanding: Bool { lock.withLock { !waiting.nothingOwed || !owed.isEmpty } }

        /// Drops the requests whose deadline passed; true while some are still waiting.
        func stillWaiting(at now: ContinuousClock.Instant) -> Bool {
            lock.withLock {
                _ = waiting.expire(at: now)
                return !waiting.nothingOwed
            }
        }
    }

    /// Runs one case over a fresh connection.
    public func run(_ input: FuzzInput) async -> Trace {
        await run(input, until: nil)
    }

    /// Runs one case over a fresh connection, stopped at `deadline`.
    public func run(_ input: FuzzInput, until deadline: ContinuousClock.Instant?) async -> Trace {
        var trace = Trace(exactTiming: false)
        let recorder = Recorder()
        let clock = ContinuousClock()
        let t0 = clock.now
        @Sendable func now() -> Int64 { Int64((clock.now - t0) / .milliseconds(1)) }
        let steps = input.steps
        let maxStep = maxStepDelayMs, settle = settleMs, quietWaitMs = Self.maxQuietWaitMs
        let checker = checker(oracles: [])
        let timeUp = { @Sendable in deadline.map { clock.now >= $0 } ?? false }
        do {
            try await WebSocketClient.withConnection(to: url, options: .init(deflate: deflate, connectTimeout: 3)) { session in
                let reader = Task {
                    for await m in session.messages { recorder.received(m, atMs: now()) }
                    // The stream ends on its own only when the connection failed or closed.
                    if !Task.isCancelled { recorder.lock.withLock { recorder.streamEnded = true } }
                }
                defer { reader.cancel() }
                for (i, step) in steps.enumerated() {
                    if timeUp() { recorder.lock.withLock { recorder.cutShort = true }; return }
                    if step.delayMs > 0 && recorder.outstanding {
                        try await Task.sleep(for: .milliseconds(min(step.delayMs, maxStep)))
                    }
                    // A text frame must be UTF-8 (RFC 6455 §8.1: the host closes with 1007
                    // otherwise), and at most 16 MiB: such messages cannot be sent as is.
                    guard case .message(let bytes) = step.kind, bytes.count <= 16 << 20,
                          String(validating: bytes, as: UTF8.self) != nil else { continue }
                    recorder.sent(bytes, step: i, atMs: now()) { clock.now + .milliseconds(checker.deadline($0, model: checker.model)) }
                    try await session.send(bytes)
                }
                // Every well-formed request's final answer, each within its own deadline.
                while recorder.stillWaiting(at: clock.now) && !recorder.lock.withLock({ recorder.streamEnded }) {
                    if timeUp() { recorder.lock.withLock { recorder.cutShort = true }; return }
                    try await Task.sleep(for: .milliseconds(1))
                }
                // Quiet for settleMs: a second answer, an unsolicited one, shows up here.
                let answered = clock.now
                let quietCap = answered + .milliseconds(quietWaitMs)
                while !timeUp() && clock.now < quietCap {
                    let last = recorder.lock.withLock { recorder.lastReceived } ?? answered
                    if clock.now - max(last, answered) >= .milliseconds(settle) { break }
                    try await Task.sleep(for: .milliseconds(1))
                }
                if recorder.lock.withLock({ recorder.streamEnded }) {
                    throw FuzzError(.target, "the connection ended before the case did (closed by the host with \(session.closeCode.map { "\($0)" } ?? "no close frame"), or a frame the client could not read)")
                }
                if let code = session.closeCode, code != .normal {
                    recorder.lock.withLock { recorder.events.append(.received(bytes: [], atMs: now())) }
                    throw FuzzError(.target, "the host closed the connection with \(code)")
                }
            }
        } catch {
            trace.targetFailure = "\(url): \(error)"
        }
        trace.cutShort = recorder.lock.withLock { recorder.cutShort }
        trace.events = recorder.lock.withLock { recorder.events }.filter {
            if case .received(let b, _) = $0 { return !b.isEmpty }
            return true
        }
        return trace
    }
}

extension Dictionary where Value == Int {
    /// One fewer of `key`; gone at zero.
    mutating func decrementOrRemove(_ key: Key) {
        guard let n = self[key] else { return }
        self[key] = n > 1 ? n - 1 : nil
    }
}
