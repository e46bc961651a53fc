import BridgeHost
import BridgeProtocol

/// The fast path: the reference host's ``HostStateMachine`` in a ``HostSimulator`` on
/// virtual time, in this process. A run copies a pristine machine (a value type, so the
/// copy is cheap), starts it, plays the steps (advancing virtual time by each step's
/// delay), then lets the host go quiet and records what is left pending.
public struct InProcessTarget: Sendable {
    /// The scenario the host runs.
    public let scenario: Scenario
    /// The limits the host runs with.
    public let limits: HostLimits
    /// An optional interceptor standing between the fuzzer and the machine (benchmarks
    /// use it to build deliberately broken hosts; the shipped host never has one).
    public var interceptor: (any HostInterceptor)?
    private let pristine: HostStateMachine

    /// Builds the host once; every run starts from a copy. `images` chooses the stub
    /// pictures' size (default ``StubImages/small``: same answers with tiny pictures).
    public init(scenario: Scenario = .default, limits: HostLimits = .default, images: StubImages = .small,
                interceptor: (any HostInterceptor)? = nil) {
        self.scenario = scenario
        self.limits = limits
        self.interceptor = interceptor
        var m = scenario.makeMachine(eventIDSeed: 0x5EED, limits: limits)
        if images == .small {
            for kind in SlotKind.allCases where scenario[slot: kind].handler {
                m.setSlotHandler(kind, .scripted(scenario.smallImageBehaviour(kind)))
            }
        }
        self.pristine = m
    }

    /// The checker matching this target: the scenario's model and the host's pending limit.
    public func checker(oracles: Set<Oracle> = Set(Oracle.all)) -> TraceChecker {
        TraceChecker(model: CapabilityModel(scenario), pendingLimit: limits.maxPendingRequests, oracles: oracles)
    }

    /// Runs one case and returns what happened.
    public func execute(_ input: FuzzInput) -> Trace {
        var sim = HostSimulator(machine: pristine)
        var trace = Trace(exactTiming: true)
        var hook = interceptor
        sim.start()
        drain(&sim, &trace, &hook)
        for (i, step) in input.steps.enumerated() {
            if step.delayMs > 0 {
                sim.advance(by: step.delayMs)
                drain(&sim, &trace, &hook)
            }
            switch step.kind {
            case .message(let bytes):
                trace.events.append(.sent(step: i, bytes: bytes, atMs: sim.now))
                if hook != nil {
                    let now = sim.now
                    let actions = hook!.receive(bytes, machine: &sim.machine, now: now)
                    sim.apply(actions)
                    if let failure = hook!.failure {
                        trace.targetFailure = failure
                        return trace
                    }
                } else {
                    sim.receive(bytes)
                }
            case .toggle(let t):
                t.apply(to: &sim.machine)
                trace.events.append(.toggled(step: i, t, atMs: sim.now))
            }
            drain(&sim, &trace, &hook)
        }
        sim.runUntilIdle(limitMs: FuzzLimits.quietLimitMs)
        drain(&sim, &trace, &hook)
        if hook != nil {
            for m in hook!.finish(machine: &sim.machine, now: sim.now) {
                trace.events.append(.received(bytes: m.bytes, atMs: m.envelope.timestamp))
            }
        }
        trace.neverQuiet = sim.timerCount > 0
        trace.pendingAfterQuiet = sim.machine.pendingCount
        trace.timersAfterQuiet = sim.machine.timerCount
        var seenEvents = Set<String>()
        for entry in sim.log where seenEvents.insert(entry.event).inserted {
            var h: UInt64 = 0xCBF2_9CE4_8422_2325
            for b in entry.event.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
            trace.extraFeatures.append(h)
        }
        return trace
    }

    private func drain(_ sim: inout HostSimulator, _ trace: inout Trace, _ hook: inout (any HostInterceptor)?) {
        var sent = sim.takeSent()
        if hook != nil { sent = hook!.outbound(sent, machine: &sim.machine, now: sim.now) }
        for m in sent {
            trace.events.append(.received(bytes: m.bytes, atMs: m.envelope.timestamp))
        }
    }
}
