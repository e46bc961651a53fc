import BridgeJSON
import Foundation
import BridgeReport

/// What a `bridgescope fuzz` run did, for the final report.
public struct FuzzSummary: Sendable {
    /// One finding reported by the run.
    public struct Entry: Sendable {
        /// The violation.
        public var violation: Violation
        /// The regression file written, nil when the same bug had a file already.
        public var file: String?
        /// Steps in the (minimized) case.
        public var steps: Int
        /// Whether the case was minimized.
        public var minimized: Bool
        /// Seconds into the run (of the job that found it) when it was found.
        public var seconds: Double? = nil
    }

    /// The target's name.
    public var target: String
    /// The seed.
    public var seed: UInt64
    /// Executions across workers.
    public var execs: UInt64 = 0
    /// Wall-clock seconds.
    public var seconds: Double = 0
    /// Largest corpus among workers.
    public var corpus = 0
    /// Most behaviour features among workers.
    public var features = 0
    /// Worker restarts after crashes or hangs.
    public var restarts = 0
    /// New findings.
    public var findings: [Entry] = []
    /// Black-box: host processes started, and cases run in them (stdio targets).
    var hostProcesses: (processes: Int, cases: Int)?
    /// Black-box violations not shown again in a fresh process (not reported).
    var unconfirmed = 0
    /// Cases the run's time stopped while a request could still be answered.
    var cutShort = 0

    /// Executions per second.
    public var execsPerSecond: Double { seconds > 0 ? Double(execs) / seconds : 0 }

    /// New findings by oracle.
    var byOracle: [Oracle: Int] {
        var out: [Oracle: Int] = [:]
        for f in findings { out[f.violation.oracle, default: 0] += 1 }
        return out
    }

    /// Whether regression files were written (exit status 1).
    public var wroteFindings: Bool { findings.contains { $0.file != nil } }

    /// The report in `format`.
    public func render(_ format: FuzzOptions.OutputFormat) -> String {
        switch format {
        case .text: return text()
        case .json: return JSONWriter().string(json()) + "\n"
        case .junit: return junit()
        }
    }

    func text() -> String {
        var lines = [String(format: "fuzz %@: %llu execs in %.1f s (%.0f/s), corpus %d, features %d, restarts %d, seed %llu",
                            target as NSString, execs, seconds, execsPerSecond, corpus, features, restarts, seed)]
        if let h = hostProcesses, h.processes > 0 {
            lines.append(String(format: "%d cases in %d host processes (%.1f cases per process)", h.cases, h.processes, Double(h.cases) / Double(h.processes)))
        }
        if unconfirmed > 0 { lines.append("\(unconfirmed) violation(s) did not show again in a fresh host process: not reported") }
        if cutShort > 0 {
            lines.append("\(cutShort) case(s) stopped by --time while a request could still be answered (not judged): a request "
                + "is unanswered only at its deadline (PROTOCOL.md §2: 5 s for capability.query, 30 s otherwise); "
                + "--response-timeout MS judges sooner")
        }
        if findings.isEmpty { lines.append("no new findings") }
        for f in findings {
            lines.append("\(f.violation.oracle): \(f.violation.message)")
            lines.append("    breaks \(f.violation.protocolRule)")
            lines.append("  " + (f.file.map { "written to \($0) (\(f.steps) step(s)\(f.minimized ? ", minimized" : ""))" } ?? "same bug as an existing regression file"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func json() -> JSONValue {
        .object(JSONObject([
            .init(key: "target", value: .string(target)),
            .init(key: "seed", value: .string(String(seed))),
            .init(key: "execs", value: .integer(Int64(execs))),
            .init(key: "seconds", value: .number(JSONNumber((seconds * 1000).rounded() / 1000) ?? JSONNumber(0))),
            .init(key: "execsPerSecond", value: .integer(Int64(execsPerSecond))),
            .init(key: "corpus", value: .integer(Int64(corpus))),
            .init(key: "features", value: .integer(Int64(features))),
            .init(key: "restarts", value: .integer(Int64(restarts))),
            .init(key: "hostProcesses", value: hostProcesses.map { .integer(Int64($0.processes)) } ?? .null),
            .init(key: "casesPerProcess", value: hostProcesses.map { h in h.processes > 0 ? .integer(Int64(h.cases / h.processes)) : .null } ?? .null),
            .init(key: "unconfirmed", value: .integer(Int64(unconfirmed))),
            .init(key: "cutShort", value: .integer(Int64(cutShort))),
            .init(key: "findings", value: .array(findings.map { f in
                .object(JSONObject([
                    .init(key: "oracle", value: .string(f.violation.oracle.rawValue)),
                    .init(key: "signature", value: .string(f.violation.signature)),
                    .init(key: "message", value: .string(f.violation.message)),
                    .init(key: "rule", value: .string(f.violation.protocolRule)),
                    .init(key: "file", value: f.file.map { .string($0) } ?? .null),
                    .init(key: "steps", value: .integer(Int64(f.steps))),
                    .init(key: "minimized", value: .bool(f.minimized)),
                    .init(key: "foundAfterSeconds", value: f.seconds.map { .number(JSONNumber(($0 * 10).rounded() / 10) ?? JSONNumber(0)) } ?? .null),
                ]))
            })),
        ]))
    }

    func junit() -> String {
        let cases = Oracle.all.map { oracle -> JUnitDocument.TestCase in
            let mine = findings.filter { $0.violation.oracle == oracle }
            let failures = mine.map { f in
                JUnitDocument.TestCase.Failure(message: f.violation.signature, body: f.violation.message
                    + "\nreproduce: bridgescope fuzz --reproduce \(f.file ?? "(existing regression file)")")
            }
            return JUnitDocument.TestCase(className: "bridgescope.fuzz", name: oracle.rawValue, outcome: failures.isEmpty ? .passed : .failed(failures))
        }
        let suite = JUnitDocument.TestSuite(name: "bridgescope-fuzz \(target)", time: String(format: "%.1f", seconds),
                                            properties: [.init("execs", "\(execs)"), .init("seed", "\(seed)")], cases: cases)
        return JUnitDocument(name: "bridgescope fuzz", suites: [suite]).render()
    }
}
