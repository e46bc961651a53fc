import BridgeTransport
import BridgeArchive
import BridgeJSON
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FuzzSupervisor {
    /// Most worker restarts (after crashes or hangs) before the run gives up.
    static let maxRestarts = 50

    final class Worker {
        let index: Int
        var process: ChildProcess
        let slot: SharedInputSlot
        var execs: UInt64 = 0
        var execsBefore: UInt64 = 0
        var corpus = 0
        var features = 0
        var done = false
        var lastProgress: ContinuousClock.Instant
        var lastExecCount: UInt64 = 0

        init(index: Int, process: ChildProcess, slot: SharedInputSlot, now: ContinuousClock.Instant) {
            self.index = index
            self.process = process
            self.slot = slot
            self.lastProgress = now
        }
    }

    var quarantine: String { "\(tempDir)/quarantine" }

    var workerEnvironment: [String: String] {
        ["SWIFT_BACKTRACE": "enable=no", "SWIFT_DETERMINISTIC_HASHING": "1"]
    }

    func spawnWorker(_ index: Int, generation: Int, slot: SharedInputSlot) throws -> ChildProcess {
        let jobs = UInt64(max(1, options.jobs))
        let seed = options.seed &+ UInt64(index) &+ UInt64(generation) &* 1_000_003
        let remaining = options.seconds.map { max(0.5, $0 - elapsed) }
        let runs = options.runs.map { max(1, $0 / jobs) }
        var o = options
        o.quarantine = quarantine
        return try ChildProcess(executable: options.executable,
                                arguments: o.workerArguments(seed: seed, seconds: remaining, runs: runs, slot: slot.path),
                                environment: workerEnvironment)
    }

    func runWorkers() async throws {
        try FileManager.default.createDirectory(atPath: tempDir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: tempDir) }
        var workers: [Worker] = []
        for i in 0..<max(1, options.jobs) {
            let slot = try SharedInputSlot(path: "\(tempDir)/worker-\(i).slot", create: true)
            workers.append(Worker(index: i, process: try spawnWorker(i, generation: 0, slot: slot), slot: slot, now: clock.now))
        }
        var generation = 0
        var lastStatus = clock.now
        while workers.contains(where: { !$0.done }) {
            for w in workers where !w.done {
                w.process.pump(timeoutMs: 100 / Int32(workers.count))
                for line in w.process.takeLines() { handle(line, from: w) }
                let execsNow = w.slot.executions
                if execsNow != w.lastExecCount {
                    w.lastExecCount = execsNow
                    w.lastProgress = clock.now
                }
                var ended = w.process.status()
                if ended == nil && clock.now - w.lastProgress > .milliseconds(Int64(options.hangTimeout * 1000)) {
                    w.process.signal(SIGKILL)
                    ended = w.process.wait()
                    hang(w)
                } else if let t = ended {
                    w.process.pump(timeoutMs: 0)
                    for line in w.process.takeLines() { handle(line, from: w) }
                    if case .exited(0) = t, w.done { continue }
                    await crash(w, t)
                }
                guard ended != nil else { continue }
                if budgetLeft && summary.restarts < Self.maxRestarts {
                    summary.restarts += 1
                    generation += 1
                    w.execsBefore += w.execs
                    w.execs = 0
                    w.lastProgress = clock.now
                    w.process = try spawnWorker(w.index, generation: generation, slot: w.slot)
                } else {
                    w.done = true
                }
            }
            summary.execs = workers.reduce(0) { $0 + $1.execsBefore + $1.execs }
            summary.corpus = workers.map(\.corpus).max() ?? 0
            summary.features = workers.map(\.features).max() ?? 0
            if clock.now - lastStatus >= .seconds(1) {
                lastStatus = clock.now
                status(statusText(execs: summary.execs, corpus: summary.corpus))
            }
        }
    }

    var budgetLeft: Bool {
        if let s = options.seconds, elapsed >= s - 0.5 { return false }
        if let r = options.runs, summary.execs >= r { return false }
        return true
    }

    func handle(_ line: [UInt8], from w: Worker) {
        guard let o = (try? JSONParser().parse(line).value)?.objectValue else { return }
        if let s = (o["stats"] ?? o["done"])?.objectValue {
            w.execs = UInt64(s["execs"]?.numberValue?.int64 ?? 0)
            w.corpus = Int(s["corpus"]?.numberValue?.int64 ?? 0)
            w.features = Int(s["features"]?.numberValue?.int64 ?? 0)
            if o["done"] != nil { w.done = true }
        }
        if let f = o["finding"]?.objectValue, let oracle = f["oracle"]?.stringValue, let signature = f["signature"]?.stringValue,
           let b64 = f["case"]?.stringValue, let bytes = Base64.decode(b64), let input = FuzzInput(binary: bytes) {
            var v = Violation(Oracle(rawValue: oracle), signature: signature, f["message"]?.stringValue ?? "")
            v.rule = f["rule"]?.stringValue
            record(FuzzFinding(violation: v, input: input, originalSteps: Int(f["originalSteps"]?.numberValue?.int64 ?? 0),
                               originalBytes: Int(f["originalBytes"]?.numberValue?.int64 ?? 0),
                               minimized: f["minimized"]?.boolValue ?? false, execs: UInt64(f["execs"]?.numberValue?.int64 ?? 0),
                               seconds: f["seconds"]?.numberValue?.double ?? 0))
        }
    }

    /// A stable crash signature: the signal and the fatal-error line without line numbers
    /// and addresses.
    static func crashSignature(_ t: ChildProcess.Termination, line: String?) -> String {
        var text = line ?? ""
        text = text.replacingOccurrences(of: #":[0-9]+:"#, with: ":", options: .regularExpression)
        text = text.replacingOccurrences(of: #"0x[0-9a-fA-F]+"#, with: "0x…", options: .regularExpression)
        text = text.replacingOccurrences(of: #"\d{3,}"#, with: "N", options: .regularExpression)
        return "\(t) \(text.prefix(200))".trimmingCharacters(in: .whitespaces)
    }

    func crash(_ w: Worker, _ t: ChildProcess.Termination) async {
        let input = w.slot.lastInput ?? FuzzInput()
        // Restarted workers leave this case out of their seeds.
        try? FileManager.default.createDirectory(atPath: quarantine, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: "\(quarantine)/\(FuzzFinding.hex(FuzzFinding.stableHash64(input.binary()) & 0xFFFF_FFFF_FFFF)).jsonl",
                                       contents: Data(FuzzCase(input: input).serialized()))
        let signature = Self.crashSignature(t, line: w.process.crashLine)
        let v = Violation(.crash, signature: signature, "the worker \(t) while running this case: \(w.process.crashLine ?? "no message")")
        guard !reported.contains(v.key) else { return }
        let minimized = await minimizeCrash(input, signature: signature)
        record(FuzzFinding(violation: v, input: minimized, originalSteps: input.steps.count, originalBytes: input.byteCount,
                           minimized: true, execs: w.execsBefore + w.slot.executions, seconds: elapsed))
    }

    func hang(_ w: Worker) {
        let input = w.slot.lastInput ?? FuzzInput()
        let v = Violation(.hang, signature: "no-progress", "the worker ran one case for more than \(options.hangTimeout) s")
        record(FuzzFinding(violation: v, input: input, originalSteps: input.steps.count, originalBytes: input.byteCount,
                           minimized: false, execs: w.execsBefore + w.slot.executions, seconds: elapsed))
    }

    /// Delta-debugs a crashing case with replay workers (a new one after each crash).
    func minimizeCrash(_ input: FuzzInput, signature: String) async -> FuzzInput {
        var replay: ChildProcess?
        var args = ["fuzz", "--worker", "--replay", "--images", options.images.rawValue]
        if let trap = options.selfTestTrap { args += ["--selftest-trap", trap] }
        if let s = options.scenarioPath { args += ["--scenario", s] }
        let executable = options.executable, env = workerEnvironment
        var minimizer = Minimizer(budget: 300)
        return await minimizer.minimize(input) { candidate in
            if replay == nil { replay = try? ChildProcess(executable: executable, arguments: args, environment: env) }
            guard let p = replay else { return false }
            let body = candidate.binary()
            var frame: [UInt8] = (0..<4).map { UInt8(truncatingIfNeeded: body.count >> (8 * $0)) }
            frame += body
            p.write(frame)
            while true {
                let open = p.pump(timeoutMs: 200)
                if !p.takeLines().isEmpty { return false }  // answered: no crash
                if !open || p.status() != nil {
                    let t = p.wait()
                    p.pump(timeoutMs: 0)
                    replay = nil
                    return FuzzSupervisor.crashSignature(t, line: p.crashLine) == signature
                }
            }
        }
    }
}
