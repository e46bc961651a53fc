import BridgeHost
import BridgeJSON

/// Replays one case file (`bridgescope fuzz --reproduce FILE`, and the regression test):
/// the case runs once against the target with every oracle that applies, in this
/// process (a crash case crashes the caller: that is the reproduction).
public enum FuzzReproducer {
    /// What a replay showed.
    public struct Outcome: Sendable {
        /// The case file.
        public var file: FuzzCase
        /// Every violation (empty: the bug is fixed, or the case was clean).
        public var violations: [Violation]
        /// The number of host messages seen.
        public var received: Int
        /// Whether the file's own oracle and signature came back.
        var reproducedOriginal: Bool {
            guard let o = file.oracle, let s = file.signature else { return !violations.isEmpty }
            return violations.contains { $0.oracle == o && $0.signature == s }
        }
    }

    /// The scenario of a case: `scenarioOverride`, else the header's inline scenario, else the default.
    public static func scenario(for c: FuzzCase, override: Scenario?) throws -> Scenario {
        if let override { return override }
        guard let json = c.scenarioJSON else { return .default }
        do { return try Scenario.parse(JSONWriter().bytes(json)) } catch {
            throw FuzzError(.usage, "the case's inline scenario is invalid: \(error)")
        }
    }

    /// Replays `c` against `target` (nil: in-process with the case's scenario).
    public static func replay(_ c: FuzzCase, target: (any FuzzTarget)? = nil, scenario: Scenario? = nil,
                              images: StubImages = .small) async throws -> Outcome {
        let t: any FuzzTarget = try target ?? InProcessTarget(scenario: Self.scenario(for: c, override: scenario), images: images)
        let input = t.supportsToggles ? c.input : c.input.withoutToggles
        let trace = await t.run(input)
        var sink = FeatureSink()
        let oracles = t.supportsToggles ? Set(Oracle.all) : Set(Oracle.overTheWire)
        var violations = t.checker(oracles: oracles).check(trace, features: &sink)
        for m in input.messages { violations += MessageOracles().check(m) }
        return Outcome(file: c, violations: violations, received: trace.receivedCount)
    }
}
