import BridgeHost
import BridgeProtocol
import BridgeTransport
import Foundation

extension WebViewTarget {
    /// One case: each message posted through the page's bridge, every well-formed
    /// request's final answer awaited (each to its deadline), then a quiet period.
    func runCase(_ input: FuzzInput, until deadline: ContinuousClock.Instant?, fresh: Bool) async -> Trace {
        var trace = Trace(exactTiming: false)
        let recorder = WebSocketTarget.Recorder()
        let clock = ContinuousClock()
        let t0 = recorder.start
        func now() -> Int64 { Int64((clock.now - t0) / .milliseconds(1)) }
        let timeUp = { deadline.map { clock.now >= $0 } ?? false }
        let checker = checker(oracles: [])
        let bridge: any PageBridge
        do {
            bridge = try await page.bridge(open, spec)
            if fresh { try await bridge.reload() }
        } catch {
            page.drop()
            if page.state.withLock({ $0.lost }) != nil {
                // The page went away in an earlier case (that case is the finding): this one cannot run.
                try? await Task.sleep(for: .milliseconds(100))
                trace.cutShort = true
                return trace
            }
            trace.targetFailure = "\(spec): \(error)"
            return trace
        }
        let (count, held) = page.begin(recorder)
        if held { trace.slotsMaybeHeld = Set(SlotKind.allCases) }
        defer { page.end(recorder) }
        let suffix = Array("~\(page.token)\(String(count, radix: 36))".utf8)
        var failure: String?
        // Posts leave at once, in order; what crossed fills each one's place as it is known.
        var posts: [(slot: Int, step: Int, atMs: Int64, task: Task<PagePost, any Error>)] = []
        for (i, step) in input.steps.enumerated() {
            if timeUp() { recorder.lock.withLock { recorder.cutShort = true }; break }
            if step.delayMs > 0 && recorder.outstanding {
                try? await Task.sleep(for: .milliseconds(min(step.delayMs, maxStepDelayMs)))
            }
            guard case .message(let bytes) = step.kind else { continue }
            let fresh = StdioTarget.freshen(bytes, suffix: suffix)
            let slot = recorder.reserve(atMs: now(), sending: fresh)
            posts.append((slot, i, now(), bridge.post(fresh)))
        }
        for post in posts {
            do {
                if case .crossed(let crossed) = try await post.task.value {
                    recorder.sent(crossed, step: post.step, atMs: post.atMs, at: post.slot) {
                        clock.now + .milliseconds(checker.deadline($0, model: checker.model))
                    }
                } else {
                    recorder.unreserve(post.slot)   // not sent: the reserved place stays empty and is dropped
                }
            } catch {
                failure = bridge.failure ?? "\(error)"
                break
            }
        }
        if failure == nil {
            // Every well-formed request's final answer, each within its own deadline.
            while recorder.stillWaiting(at: clock.now) && bridge.failure == nil {
                if timeUp() { recorder.lock.withLock { recorder.cutShort = true }; break }
                try? await Task.sleep(for: .milliseconds(1))
            }
            // Quiet for the settle time: a second answer, an unsolicited one, shows up here.
            let answered = clock.now
            let settle = fresh ? confirmSettleMs : settleMs
            let quietCap = answered + .milliseconds(Self.maxQuietWaitMs)
            while !timeUp() && bridge.failure == nil && clock.now < quietCap {
                let last = recorder.lock.withLock { recorder.lastReceived } ?? answered
                if clock.now - max(last, answered) >= .milliseconds(settle) { break }
                try? await Task.sleep(for: .milliseconds(1))
            }
            failure = bridge.failure
        }
        if let failure {
            page.drop(lost: failure)
            trace.targetFailure = "\(spec): the page or its debugging connection went away during the case: \(failure)"
        }
        trace.cutShort = recorder.lock.withLock { recorder.cutShort }
        trace.events = recorder.lock.withLock { recorder.events }.filter {
            if case .received(let b, _) = $0 { return !b.isEmpty }
            return true
        }
        return trace
    }
}

extension WebSocketTarget.Recorder {
    /// A message read at `instant` (a reader that outlives the case stamps it).
    func received(_ bytes: [UInt8], at instant: ContinuousClock.Instant) {
        received(bytes, atMs: max(0, Int64((instant - start) / .milliseconds(1))))
    }
}
