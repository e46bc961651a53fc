import BridgeClock
import BridgeFuzz
import BridgeModel

/// Runs the suite's cases against one target, each on its own (a fresh host process or
/// connection for a black-box target), and judges each trace with the target's checker,
/// which asks the protocol model (BridgeModel) for a legal explanation.
public struct ConformanceRunner: Sendable {
    /// The target.
    public let target: any FuzzTarget
    /// The target as the user named it.
    public let name: String
    /// Whether the target judges by the reference host's choices.
    public let strict: Bool

    /// Creates a runner.
    public init(target: any FuzzTarget, name: String, strict: Bool) {
        self.target = target
        self.name = name
        self.strict = strict
    }

    /// Runs `cases` in order; `progress` is told after each.
    public func run(_ cases: [ConformanceCase], progress: (@Sendable (Int, ConformanceResult) -> Void)? = nil) async -> ConformanceRun {
        let checker = target.checker(oracles: Set(Oracle.all))
        var results: [ConformanceResult] = []
        for c in cases {
            let started = Stopwatch.monotonic.now()
            let trace = await target.confirm(c.input, until: nil)
            let ms = Int((Stopwatch.monotonic.now() - started) / 1_000_000)
            let result = ConformanceResult(testCase: c, verdict: Self.verdict(c, checker.judge(trace)),
                                           exchange: Self.exchange(trace), milliseconds: ms)
            results.append(result)
            progress?(results.count, result)
        }
        return ConformanceRun(target: name, strict: strict, results: results)
    }

    static func verdict(_ c: ConformanceCase, _ j: TraceChecker.Judgement) -> ConformanceVerdict {
        let failures = c.kind == .informational ? j.violations.filter { $0.oracle == .crash || $0.oracle == .hang } : j.violations
        if let v = failures.first { return .fail(rule: v.protocolRule, reason: v.message) }
        if c.kind == .informational {
            let note = j.explanation.map { $0.distinctChoices.map(\.rawValue).joined(separator: ", ") } ?? ""
            let broken = j.violations.first.map { "; the model would say: \($0.message)" } ?? ""
            return .informational((note.isEmpty ? "answered" : "answered with \(note)") + broken)
        }
        if let u = j.undecided { return .undecided(u) }
        let choices = j.explanation?.distinctChoices ?? []
        return choices.isEmpty ? .pass : .passWithChoice(choices)
    }

    static func exchange(_ trace: Trace) -> [ConformanceResult.Line] {
        var lines: [ConformanceResult.Line] = []
        var t0: Int64?
        for e in trace.events {
            switch e {
            case .sent(_, let bytes, let at):
                t0 = t0 ?? at
                lines.append(.init(direction: ">", atMs: at - (t0 ?? at), text: clip(bytes)))
            case .received(let bytes, let at):
                t0 = t0 ?? at
                lines.append(.init(direction: "<", atMs: at - (t0 ?? at), text: clip(bytes)))
            case .toggled:
                break
            }
        }
        return lines
    }

    static func clip(_ bytes: [UInt8]) -> String {
        let s = String(decoding: bytes.prefix(4096), as: UTF8.self)
        return bytes.count > 4096 ? s + "… (\(bytes.count) bytes)" : s
    }
}
