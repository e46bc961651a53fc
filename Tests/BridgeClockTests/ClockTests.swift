import BridgeClock
import Foundation
import Testing

/// The one clock: epoch instants, the wall clock, the virtual clock and the stopwatch.
@Suite struct ClockTests {
    @Test func epochInstantsRoundMillisecondsDownAndMeasureDurations() {
        #expect(EpochInstant(nanoseconds: 1_999_999).milliseconds == 1)
        #expect(EpochInstant(nanoseconds: -1).milliseconds == -1)
        #expect(EpochInstant(nanoseconds: -1_000_000).milliseconds == -1)
        #expect(EpochInstant(milliseconds: 5).nanoseconds == 5_000_000)
        let a = EpochInstant(milliseconds: 10)
        #expect(a.advanced(by: .milliseconds(5)) == EpochInstant(milliseconds: 15))
        #expect(a.duration(to: EpochInstant(milliseconds: 7)) == .milliseconds(-3))
        #expect(a < a.advanced(by: .nanoseconds(1)))
    }

    @Test func durationNanosecondsSaturateInsteadOfTrapping() {
        #expect(Duration.seconds(2).nanoseconds == 2_000_000_000)
        #expect(Duration.microseconds(-3).nanoseconds == -3_000)
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
        #expect(Duration.seconds(Int64.min).nanoseconds == .min)
    }

    @Test func theWallClockReadsTheTimeOfDay() async throws {
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        let now = WallClock().milliseconds
        #expect(abs(now - before) < 5_000)
        let start = ContinuousClock.now
        try await WallClock().sleep(untilMilliseconds: WallClock().milliseconds + 20)
        #expect(ContinuousClock.now - start >= .milliseconds(15))
        try await WallClock().sleep(untilMilliseconds: 0)   // the past: at once
    }

    @Test func theVirtualClockResumesSleepersOnlyWhenAdvanced() async throws {
        let clock = VirtualClock()
        #expect(clock.milliseconds == VirtualClock.defaultStart)
        let woke = Task { try await clock.sleep(untilMilliseconds: VirtualClock.defaultStart + 100); return clock.milliseconds }
        try await Task.sleep(for: .milliseconds(20))
        clock.advance(by: 99)
        clock.advance(by: 1)
        #expect(try await woke.value == VirtualClock.defaultStart + 100)
        // a deadline inside a millisecond rounds up to the next whole one
        let late = Task { try await clock.sleep(until: clock.now.advanced(by: .microseconds(1)), tolerance: nil) }
        try await Task.sleep(for: .milliseconds(20))
        clock.advance(by: 1)
        try await late.value
        clock.advance(to: VirtualClock.defaultStart)   // never backward
        #expect(clock.milliseconds == VirtualClock.defaultStart + 101)
    }

    @Test func aCancelledSleeperThrows() async {
        let clock = VirtualClock()
        let t = Task { try await clock.sleep(untilMilliseconds: clock.milliseconds + 1_000) }
        t.cancel()
        await #expect(throws: CancellationError.self) { try await t.value }
    }

    @Test func aStopwatchOverAVirtualClockCountsFromItsOrigin() async throws {
        let clock = VirtualClock()
        let watch = Stopwatch(clock)
        #expect(watch.now() == 0)
        clock.advance(by: 250)
        #expect(watch.now() == 250_000_000)
        let sleeper = Task { try await watch.sleep(until: 300_000_000); return watch.now() }
        try await Task.sleep(for: .milliseconds(20))
        clock.advance(by: 50)
        #expect(try await sleeper.value == 300_000_000)
    }

    @Test func theMonotonicStopwatchIsSharedAndSpinsToItsDeadline() async throws {
        let a = Stopwatch.monotonic.now()
        let b = Stopwatch.monotonic.now()
        #expect(b >= a)
        let deadline = Stopwatch.monotonic.now() + 5_000_000
        try await Stopwatch.monotonic.sleep(until: deadline, spin: .milliseconds(2))
        #expect(Stopwatch.monotonic.now() >= deadline)
    }
}
