import BridgeClock
/// One open connection to a target, seen from the web side: send envelopes, read the
/// host's. Provided by the WebSocket, stdio and in-process targets.
protocol ReplayLink: Sendable {
    /// Messages from the host, in order; finishes when the target closes.
    var messages: AsyncStream<[UInt8]> { get }
    /// Sends one web-to-host message.
    func send(_ message: [UInt8]) async throws
    /// Sends one web-to-host message and gives what crossed to the host (nil: nothing
    /// could be sent). A socket carries the bytes as they are; a WebView's bridge may not.
    func sendCrossing(_ message: [UInt8]) async throws -> [UInt8]?
}

extension ReplayLink {
    func sendCrossing(_ message: [UInt8]) async throws -> [UInt8]? {
        try await send(message)
        return message
    }
}

/// Replays one connection over a live ``ReplayLink`` on the real clock: the
/// ``ReplayScheduler`` decides, this loop sends, waits and stamps arrival times (taken
/// when a message is read off the link, before the loop looks at it).
enum RealTimeReplayDriver {
    /// Replays `plan` over `link` and returns what happened. Returns when the scheduler
    /// is finished or the link closes; the caller then closes the link.
    public static func run(plan: ConnectionPlan, link: some ReplayLink, pacing: ReplayPacing,
                           timing: ReplayScheduler.Timing, spin: Duration) async -> ConnectionRun {
        let clock = Stopwatch.monotonic
        let inbox = ReplayInbox()
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await m in link.messages { inbox.push(m, at: Int64(clock.now())) }
                inbox.close(at: Int64(clock.now()))
            }
            var scheduler = ReplayScheduler(plan: plan, pacing: pacing, timing: timing, start: Int64(clock.now()))
            loop: while true {
                let now = Int64(clock.now())
                switch scheduler.next(now: now) {
                case .send(let index, let due):
                    let at = Int64(clock.now())
                    let crossed: [UInt8]?
                    do {
                        crossed = try await link.sendCrossing(plan.sends[index].message.bytes)
                    } catch {
                        scheduler.targetClosed(at: Int64(clock.now()))
                        continue loop
                    }
                    scheduler.didSend(index, at: at, due: due, crossed: crossed)
                case .wait(let until):
                    switch await inbox.next(deadline: until, spin: spin) {
                    case .message(let bytes, let at): scheduler.received(bytes, at: at)
                    case .timeout: break
                    case .closed(let at): scheduler.targetClosed(at: at)
                    }
                case .finished:
                    break loop
                }
                if Task.isCancelled { break }
            }
            group.cancelAll()
            return ConnectionRun(scheduler: scheduler)
        }
    }
}
