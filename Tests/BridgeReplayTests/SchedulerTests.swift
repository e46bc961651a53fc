@testable import BridgeReplay
import Testing

/// The scheduler on made-up times: what it sends when, under each pacing, with causality,
/// timeouts, a closing target and the recorded tail. No clock, no I/O.
struct SchedulerTests {
    static let ms: Int64 = 1_000_000
    static let start: Int64 = 1_000 * ms

    /// Recorded (ms from the start): 0 request a; 10 answer a; 30 request b; 100 answer b;
    /// 100 event e; the connection ends at 150.
    static var plan: ConnectionPlan {
        let t0: Int64 = 5_000 * ms
        let messages = [
            RecordedMessage(time: t0, direction: .webToHost, bytes: Array(Env.request("a", "x.a").utf8)),
            RecordedMessage(time: t0 + 10 * ms, direction: .hostToWeb, bytes: Array(Env.response("a", "x.a").utf8)),
            RecordedMessage(time: t0 + 30 * ms, direction: .webToHost, bytes: Array(Env.request("b", "x.b").utf8)),
            RecordedMessage(time: t0 + 100 * ms, direction: .hostToWeb, bytes: Array(Env.response("b", "x.b").utf8)),
            RecordedMessage(time: t0 + 100 * ms, direction: .webToHost, bytes: Array(Env.event("e", "journey.complete").utf8)),
        ]
        let c = RecordedConnection(id: "c", startTime: t0, endTime: t0 + 150 * ms, messages: messages)
        return ConnectionPlan(connection: c, sessionStart: t0)
    }

    static let timing = ReplayScheduler.Timing(responseTimeout: 2_000 * ms, linger: 1_000 * ms)

    static func answer(_ cid: String, _ action: String) -> [UInt8] { Array(Env.response(cid, action).utf8) }

    @Test func thePlanRecordsWhichResponsesEachMessageWaitedFor() {
        let p = Self.plan
        #expect(p.sends.map(\.requiredSlots) == [0, 1, 2])
        #expect(p.slots.map(\.key.correlationId) == ["a", "b"])
        #expect(p.tail == 50 * Self.ms)
    }

    @Test func asapSendsEachMessageAsSoonAsItsResponsesArrived() {
        var s = ReplayScheduler(plan: Self.plan, pacing: .asap, timing: Self.timing, start: Self.start)
        let t = Self.start
        #expect(s.next(now: t) == .send(index: 0, due: t))
        s.didSend(0, at: t)
        #expect(s.next(now: t) == .wait(until: t + 2_000 * Self.ms), "waits for answer a, at most the timeout")
        s.received(Self.answer("a", "x.a"), at: t + 7 * Self.ms)
        #expect(s.next(now: t + 7 * Self.ms) == .send(index: 1, due: t))
    }

    @Test func recordedPacingKeepsTheGapAfterThePreviousMessageAndAfterTheResponse() {
        var s = ReplayScheduler(plan: Self.plan, pacing: .recorded, timing: Self.timing, start: Self.start)
        let t = Self.start, ms = Self.ms
        #expect(s.next(now: t) == .send(index: 0, due: t))
        s.didSend(0, at: t)
        // The answer comes after 50 ms instead of 10: b keeps its 20 ms after it.
        s.received(Self.answer("a", "x.a"), at: t + 50 * ms)
        #expect(s.next(now: t + 50 * ms) == .wait(until: t + 70 * ms))
        #expect(s.next(now: t + 70 * ms) == .send(index: 1, due: t + 70 * ms))
        s.didSend(1, at: t + 71 * ms, due: t + 70 * ms)
        s.received(Self.answer("b", "x.b"), at: t + 80 * ms)
        // e: 70 ms after b was sent (recorded 30 → 100), 0 ms after answer b.
        #expect(s.next(now: t + 80 * ms) == .wait(until: t + 141 * ms))
        #expect(s.sendTimes.map { $0.actual - $0.due } == [0, 1 * ms])
    }

    @Test func aFastAnswerDoesNotPullAMessageBeforeItsRecordedGap() {
        var s = ReplayScheduler(plan: Self.plan, pacing: .recorded, timing: Self.timing, start: Self.start)
        let t = Self.start, ms = Self.ms
        _ = s.next(now: t)
        s.didSend(0, at: t)
        s.received(Self.answer("a", "x.a"), at: t + 1 * ms)
        #expect(s.next(now: t + 1 * ms) == .wait(until: t + 30 * ms))
    }

    @Test func scaledPacingDividesEveryGap() {
        var s = ReplayScheduler(plan: Self.plan, pacing: .speed(2), timing: Self.timing, start: Self.start)
        let t = Self.start, ms = Self.ms
        _ = s.next(now: t)
        s.didSend(0, at: t)
        s.received(Self.answer("a", "x.a"), at: t + 5 * ms)
        #expect(s.next(now: t + 5 * ms) == .wait(until: t + 15 * ms))
        let slow = ReplayPacing.speed(0.5)
        #expect(slow.scale(30 * ms) == 60 * ms)
        #expect(slow.description == "x0.5")
    }

    @Test func aResponseThatNeverComesReleasesItsDependentsAtTheTimeout() {
        var s = ReplayScheduler(plan: Self.plan, pacing: .recorded, timing: Self.timing, start: Self.start)
        let t = Self.start, ms = Self.ms
        _ = s.next(now: t)
        s.didSend(0, at: t)
        let deadline = t + 2_000 * ms
        #expect(s.next(now: t + 500 * ms) == .wait(until: deadline))
        // At the deadline the slot is given up on; b keeps its 20 ms after that.
        #expect(s.next(now: deadline) == .wait(until: deadline + 20 * ms))
        #expect(s.timedOut == 1)
    }

    @Test func anAcknowledgementDoesNotSettleARequestButTheFinalAnswerSettlesAllItsSlots() {
        let t0: Int64 = 0, ms = Self.ms
        let messages = [
            RecordedMessage(time: t0, direction: .webToHost, bytes: Array(Env.request("a", "x.a").utf8)),
            RecordedMessage(time: t0 + 1 * ms, direction: .hostToWeb, bytes: Array(Env.response("a", "x.a", status: "acknowledged").utf8)),
            RecordedMessage(time: t0 + 9 * ms, direction: .hostToWeb, bytes: Array(Env.response("a", "x.a").utf8)),
            RecordedMessage(time: t0 + 10 * ms, direction: .webToHost, bytes: Array(Env.request("b", "x.b").utf8)),
        ]
        let plan = ConnectionPlan(connection: RecordedConnection(id: "c", startTime: t0, messages: messages), sessionStart: t0)
        #expect(plan.sends[1].requiredSlots == 2)
        var s = ReplayScheduler(plan: plan, pacing: .asap, timing: Self.timing, start: 0)
        _ = s.next(now: 0)
        s.didSend(0, at: 0)
        // This host skips the acknowledgement: the final answer settles both slots.
        s.received(Self.answer("a", "x.a"), at: 3 * ms)
        #expect(s.next(now: 3 * ms) == .send(index: 1, due: 0))
    }

    @Test func theConnectionStaysOpenForTheRecordedTailCappedByTheLinger() {
        var s = ReplayScheduler(plan: Self.plan, pacing: .asap, timing: Self.timing, start: 0)
        let ms = Self.ms
        _ = s.next(now: 0); s.didSend(0, at: 0)
        s.received(Self.answer("a", "x.a"), at: 1 * ms)
        _ = s.next(now: 1 * ms); s.didSend(1, at: 1 * ms)
        s.received(Self.answer("b", "x.b"), at: 2 * ms)
        _ = s.next(now: 2 * ms); s.didSend(2, at: 2 * ms)
        #expect(s.next(now: 2 * ms) == .wait(until: 52 * ms), "the recorded 50 ms after the last web message")
        #expect(s.next(now: 52 * ms) == .finished)
        let short = ReplayScheduler.Timing(responseTimeout: 2_000 * ms, linger: 10 * ms)
        var t = ReplayScheduler(plan: Self.plan, pacing: .asap, timing: short, start: 0)
        _ = t.next(now: 0); t.didSend(0, at: 0)
        t.received(Self.answer("a", "x.a"), at: 0)
        _ = t.next(now: 0); t.didSend(1, at: 0)
        t.received(Self.answer("b", "x.b"), at: 0)
        _ = t.next(now: 0); t.didSend(2, at: 0)
        #expect(t.next(now: 0) == .wait(until: 10 * ms))
    }

    @Test func aTargetThatClosesEndsTheConnectionAndIsReported() {
        var s = ReplayScheduler(plan: Self.plan, pacing: .asap, timing: Self.timing, start: 0)
        _ = s.next(now: 0)
        s.didSend(0, at: 0)
        s.targetClosed(at: 5)
        #expect(s.next(now: 5) == .finished)
        let run = ConnectionRun(scheduler: s)
        #expect(run.closedEarly)
        #expect(run.sent == 1 && run.planned == 3)
    }

    @Test func pacingParsesTheDocumentedForms() {
        #expect(ReplayPacing(parsing: "asap") == .asap)
        #expect(ReplayPacing(parsing: "recorded") == .recorded)
        #expect(ReplayPacing(parsing: "x2")?.gapScale == 0.5)
        #expect(ReplayPacing(parsing: "x2")?.description == "x2")
        for bad in ["", "fast", "x", "x0", "x-1", "xnan", "2", "x1e9"] {
            #expect(ReplayPacing(parsing: bad) == nil, "\(bad)")
        }
    }
}
