import BridgeJSON
import BridgeTransport
import Foundation

extension FuzzSupervisor {
    /// `--jobs N` against a black-box target: N child runs of `bridgescope fuzz` side by
    /// side, each with its own host processes (seed S+i; `--time` each, `--runs` split),
    /// their JSON summaries merged: executions and host processes summed, findings kept
    /// once per oracle and signature. A case waits for its host's answers, so runs
    /// side by side multiply the rate until the machine or the host is busy.
    func runBlackBoxJobs() async throws {
        var children: [(ChildProcess, String)] = []
        let runs = options.runs
        for i in 0..<options.jobs {
            var a = ["fuzz", "--target", options.target.description, "--seed", String(options.seed &+ UInt64(i)),
                     "--corpus", options.corpus, "--format", "json", "--mode", options.mode.rawValue]
            if let s = options.seconds { a += ["--time", String(format: "%.3f", s)] }
            if let runs {
                let share = runs / UInt64(options.jobs) + (UInt64(i) < runs % UInt64(options.jobs) ? 1 : 0)
                guard share > 0 else { continue }
                a += ["--runs", String(share)]
            }
            if let p = options.scenarioPath { a += ["--scenario", p] }
            a += ["--findings", options.findingsDir ?? store.regressions]
            if options.strict { a.append("--strict") }
            if let n = options.maxFindings { a += ["--max-findings", String(n)] }
            if let r = options.responseTimeoutMs { a += ["--response-timeout", String(r)] }
            if let n = options.casesPerProcess { a += ["--cases-per-process", String(n)] }
            if options.webSocketDeflate { a.append("--ws-deflate") }
            for s in options.seedArchives { a += ["--seed-archive", s] }
            let err = NSTemporaryDirectory() + "bridgescope-fuzz-job-\(getpid())-\(i).log"
            let fd = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            defer { if fd >= 0 { close(fd) } }
            do {
                let p = try ChildProcess(executable: options.executable, arguments: a, stderrFile: fd >= 0 ? fd : nil)
                p.closeStdin()
                children.append((p, err))
            } catch {
                throw FuzzError(.target, "cannot start fuzz job \(i + 1): \(error)")
            }
        }
        var seen = Set<String>()
        var processes = 0, cases = 0
        var lastStatus = clock.now
        for (p, err) in children {
            while p.status() == nil {
                p.pump(timeoutMs: 100)
                if clock.now - lastStatus >= .seconds(1) {
                    lastStatus = clock.now
                    status(String(format: "fuzz %@ %.0fs: %d jobs running", options.target.description as NSString, elapsed, children.count))
                }
            }
            p.pump(timeoutMs: 0)
            let out = p.stdoutBuffer
            defer { unlink(err) }
            guard case .object(let o)? = try? JSONParser().parse(out).value else {
                let tail = (try? String(contentsOfFile: err, encoding: .utf8)).map { String($0.suffix(400)) } ?? ""
                throw FuzzError(.target, "a fuzz job ended without a report (\(p.status().map { "\($0)" } ?? "?")): \(tail)")
            }
            summary.execs += UInt64(o["execs"]?.numberValue?.int64 ?? 0)
            summary.corpus = max(summary.corpus, Int(o["corpus"]?.numberValue?.int64 ?? 0))
            summary.features = max(summary.features, Int(o["features"]?.numberValue?.int64 ?? 0))
            summary.unconfirmed += Int(o["unconfirmed"]?.numberValue?.int64 ?? 0)
            summary.cutShort += Int(o["cutShort"]?.numberValue?.int64 ?? 0)
            let procs = Int(o["hostProcesses"]?.numberValue?.int64 ?? 0)
            processes += procs
            cases += Int(o["execs"]?.numberValue?.int64 ?? 0)
            for f in o["findings"]?.arrayValue ?? [] {
                guard let oracle = f["oracle"]?.stringValue, let signature = f["signature"]?.stringValue else { continue }
                var v = Violation(Oracle(rawValue: oracle), signature: signature, f["message"]?.stringValue ?? "")
                v.rule = f["rule"]?.stringValue
                guard seen.insert(v.key).inserted else {
                    // Two jobs found the same bug: the one that wrote the file names it.
                    if let file = f["file"]?.stringValue, let k = summary.findings.firstIndex(where: { $0.violation.key == v.key }),
                       summary.findings[k].file == nil {
                        summary.findings[k].file = file
                    }
                    continue
                }
                summary.findings.append(FuzzSummary.Entry(violation: v, file: f["file"]?.stringValue,
                                                          steps: Int(f["steps"]?.numberValue?.int64 ?? 0),
                                                          minimized: f["minimized"] == .bool(true),
                                                          seconds: f["foundAfterSeconds"]?.numberValue.flatMap { Double($0.lexeme) }))
            }
        }
        if processes > 0 { summary.hostProcesses = (processes, cases) }
    }
}
