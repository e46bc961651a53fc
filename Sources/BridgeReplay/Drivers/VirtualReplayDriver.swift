import BridgeHost

/// Replays one connection against a fresh reference host on virtual time: sends,
/// response latencies, timeouts and pacing gaps all happen on a clock that jumps, so the
/// result is what a real-time replay against the same scenario would give, in a small
/// fraction of the time and the same every run.
public enum VirtualReplayDriver {
    /// Replays `plan` against a host scripted by `scenario` (event ids seeded by `seed`).
    public static func run(plan: ConnectionPlan, scenario: Scenario, pacing: ReplayPacing,
                           timing: ReplayScheduler.Timing, seed: UInt64) -> ConnectionRun {
        var host = VirtualHost(machine: scenario.makeMachine(eventIDSeed: seed))
        var scheduler = ReplayScheduler(plan: plan, pacing: pacing, timing: timing, start: host.nowNanoseconds)
        host.start()
        deliver(&host, to: &scheduler)
        while true {
            switch scheduler.next(now: host.nowNanoseconds) {
            case .send(let index, let due):
                host.receive(plan.sends[index].message.bytes)
                scheduler.didSend(index, at: host.nowNanoseconds, due: due)
                deliver(&host, to: &scheduler)
            case .wait(let until):
                let ms = (until + 999_999) / 1_000_000
                if let t = host.nextTimer, t <= ms {
                    _ = host.fireNextTimers()
                    deliver(&host, to: &scheduler)
                } else {
                    host.advance(to: ms)
                }
            case .finished:
                return ConnectionRun(scheduler: scheduler)
            }
        }
    }

    private static func deliver(_ host: inout VirtualHost, to scheduler: inout ReplayScheduler) {
        for (bytes, at) in host.takeSent() {
            scheduler.received(bytes, at: at * 1_000_000)
        }
    }
}
