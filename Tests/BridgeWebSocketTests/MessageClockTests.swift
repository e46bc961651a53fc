import BridgeWebSocket
import NIOCore
import Testing

/// The message timeout's state, shared by the server's handler and the proxy's upstream one.
@Suite struct MessageClockTests {
    let t0 = NIODeadline.uptimeNanoseconds(1_000_000_000)

    @Test func anIncompleteFrameArmsOnceFromWhenItBegan() {
        var c = MessageClock(timeout: 2)
        #expect(c.ranOut(incomplete: false, now: t0) == .none)
        #expect(c.ranOut(incomplete: true, now: t0) == .arm(t0 + .seconds(2)))
        #expect(c.ranOut(incomplete: true, now: t0 + .seconds(1)) == .none, "the timer scheduled stands")
        #expect(c.fired(now: t0 + .seconds(2)) == .expired)
    }

    @Test func aCompletedMessageStopsTheClockAndTheNextStartsItsOwn() {
        var c = MessageClock(timeout: 2)
        _ = c.ranOut(incomplete: true, now: t0)
        c.frameCompleted(inMessage: false)
        #expect(c.incompleteSince == nil)
        #expect(c.ranOut(incomplete: true, now: t0 + .seconds(1)) == .none, "still scheduled from before")
        // The old timer fires at t0+2: the new frame began at t0+1, so it is due at t0+3.
        #expect(c.fired(now: t0 + .seconds(2)) == .arm(t0 + .seconds(3)))
        #expect(c.fired(now: t0 + .seconds(3)) == .expired)
    }

    @Test func aFragmentedMessageKeepsItsStartAcrossFrames() {
        var c = MessageClock(timeout: 2)
        _ = c.ranOut(incomplete: true, now: t0)
        c.frameCompleted(inMessage: true)
        #expect(c.incompleteSince == t0)
        #expect(c.fired(now: t0 + .seconds(2)) == .expired)
    }

    @Test func nothingIncompleteWhenTheTimerFiresIsNothingToDo() {
        var c = MessageClock(timeout: 2)
        _ = c.ranOut(incomplete: true, now: t0)
        _ = c.ranOut(incomplete: false, now: t0 + .milliseconds(10))
        #expect(c.fired(now: t0 + .seconds(2)) == .none)
        #expect(c.ranOut(incomplete: true, now: t0 + .seconds(3)) == .arm(t0 + .seconds(5)))
    }

    @Test func aPausedReaderIsNotBlamedYet() {
        var c = MessageClock(timeout: 2)
        _ = c.ranOut(incomplete: true, now: t0)
        #expect(c.fired(paused: true, now: t0 + .seconds(2)) == .arm(t0 + .seconds(2) + .milliseconds(100)))
        #expect(c.fired(now: t0 + .seconds(2) + .milliseconds(100)) == .expired)
    }
}
