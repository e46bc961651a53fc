import Foundation
import BridgeHost

/// The fuzzing loop: pick a parent from the corpus, mutate it, run it, judge it with the
/// oracles, keep it when it shows new behaviour, minimize and report what fails.
///
/// Deterministic for a given seed, corpus and target (in-process): every random choice
/// comes from one ``FuzzRandom``.
public final class FuzzEngine {
    /// What the engine has done so far.
    public struct Stats: Sendable, Hashable {
        /// Cases run (mutations, seeds and minimization runs).
        public var execs: UInt64 = 0
        /// Cases in the corpus.
        public var corpus = 0
        /// Distinct behaviour features seen.
        public var features = 0
        /// New findings by oracle.
        public var findings: [Oracle: Int] = [:]
        /// Seconds since the run started.
        public var seconds: Double = 0
        /// Black-box violations that did not show again in a fresh host process, so were
        /// not reported (they depended on an earlier case).
        var unconfirmed = 0
        /// Cases stopped by the run's time with requests still inside their deadline.
        var cutShort = 0
        /// Executions per second over the run.
        public var execsPerSecond: Double { seconds > 0 ? Double(execs) / seconds : 0 }
    }

    /// The target.
    public let target: any FuzzTarget
    /// `BRIDGESCOPE_FUZZ_DEBUG` is set: unconfirmed violations and cases over 1 s are
    /// printed on standard error (docs/FUZZING.md). Read once, not per execution.
    static let debug = ProcessInfo.processInfo.environment["BRIDGESCOPE_FUZZ_DEBUG"] != nil
    /// The configuration.
    public let configuration: FuzzConfiguration
    /// The corpus (seeds first).
    public private(set) var corpus: [FuzzInput] = []
    /// The statistics.
    public private(set) var stats = Stats()
    /// Findings so far, by violation key (oracle and signature).
    public private(set) var findings: [String: FuzzFinding] = [:]
    /// Keys already known (from earlier runs' regression files): not reported again.
    var knownKeys: Set<String> = []
    /// Called before each execution with the case about to run (the worker records it
    /// where its supervisor can read it after a crash).
    var willRun: ((FuzzInput) -> Void)?
    /// Called with each new finding.
    public var onFinding: ((FuzzFinding) -> Void)?
    /// Called with new corpus entries (to save them).
    var onNewCorpusEntry: ((FuzzInput) -> Void)?

    var rng: FuzzRandom
    let checker: TraceChecker
    let messageOracles: MessageOracles
    let mutator: FuzzMutator
    var featureBits = [UInt64](repeating: 0, count: 1 << 14)
    var checkedMessages = Set<UInt64>()
    let clock = ContinuousClock()
    var start: ContinuousClock.Instant

    /// Creates an engine; call ``addSeeds(_:)`` then ``run(until:)``.
    public init(target: any FuzzTarget, configuration: FuzzConfiguration) {
        self.target = target
        self.configuration = configuration
        self.rng = FuzzRandom(seed: configuration.seed)
        self.checker = target.checker(oracles: configuration.oracles).caching()
        self.messageOracles = MessageOracles(oracles: configuration.oracles.intersection([.roundTrip, .jsonAgreement]))
        self.mutator = FuzzMutator(mode: configuration.mode, toggles: target.supportsToggles && configuration.toggles,
                                   weights: configuration.singleMessage ? [40, 40, 20, 0] : [30, 30, 15, 25])
        self.start = clock.now
    }

    /// Runs the seeds (reporting what they already show) and adds them to the corpus.
    public func addSeeds(_ seeds: [FuzzInput]) async {
        // The run's budgets start with the seeds: running them (and minimizing what they
        // show) is part of --time and --runs.
        startBudgets()
        for s in seeds {
            if let maxRuns = configuration.maxRuns, stats.execs >= maxRuns { break }
            if let end = runDeadline, clock.now >= end { break }
            if enoughFindings { break }
            let input = target.supportsToggles ? s : s.withoutToggles
            let (violations, fresh) = await evaluate(input, cacheMessages: true)
            corpus.append(input)
            _ = fresh
            await report(violations, input)
        }
        if corpus.isEmpty { corpus.append(FuzzInput(messages: [MessageWriter.envelope(id: "q-1", type: "request", action: "capability.query")])) }
        stats.corpus = corpus.count
    }

    /// Fuzzes until `stop` says so (checked every few executions) or the configured runs
    /// or time are used up.
    /// Starts the clock of `--time` once (at the seeds, or at ``run(stop:)`` without them).
    func startBudgets() {
        guard !budgetsStarted else { return }
        budgetsStarted = true
        start = clock.now
        if let t = configuration.maxSeconds { runDeadline = start + .milliseconds(Int64(t * 1000)) }
    }
    var budgetsStarted = false

    /// Whether `--max-findings` new findings were reported.
    var enoughFindings: Bool {
        guard let n = configuration.maxFindings else { return false }
        return stats.findings.values.reduce(0, +) >= n
    }

    public func run(stop: () -> Bool = { false }) async {
        startBudgets()
        // In-process cases take microseconds: look at the clock every 8; over the wire one
        // case can take seconds, so every case.
        let every = target.supportsToggles ? 8 : 1
        var sinceCheck = 0
        while true {
            if let maxRuns = configuration.maxRuns, stats.execs >= maxRuns { break }
            if enoughFindings { break }
            sinceCheck += 1
            if sinceCheck >= every {
                sinceCheck = 0
                updateTime()
                if let t = configuration.maxSeconds, stats.seconds >= t { break }
                if stop() { break }
                configuration.progress?(stats)
            }
            await step()
        }
        updateTime()
    }

    /// When the run's time is up (`--time`): cases and minimization stop there.
    var runDeadline: ContinuousClock.Instant?
    /// Seconds spent minimizing so far.
    var minimizingSeconds: Double = 0
    /// The share of `--time` minimization may use: a quarter (docs/FUZZING.md, "Budgets").
    static let minimizeShare = 0.25

    /// One mutation, execution and judgement.
    public func step() async {
        let parent = pickParent()
        let other = rng.oneIn(3) ? rng.pick(corpus) : nil
        let child = mutator.mutate(parent, other: other, &rng)
        let (violations, fresh) = await evaluate(child, cacheMessages: true)
        if fresh && corpus.count < configuration.maxCorpus {
            corpus.append(child)
            stats.corpus = corpus.count
            onNewCorpusEntry?(child)
        }
        await report(violations, child)
    }

    func pickParent() -> FuzzInput {
        // Newer entries are likelier to lead somewhere new: a third of the picks come from
        // the newest eighth of the corpus.
        if corpus.count > 8 && rng.oneIn(3) {
            let recent = corpus.count / 8
            return corpus[corpus.count - 1 - rng.below(recent)]
        }
        // Half the other picks are a tournament of two won by the shorter case, so cheap
        // cases are mutated more often than the occasional thousand-step one.
        let a = corpus[rng.below(corpus.count)]
        guard rng.oneIn(2) else { return a }
        let b = corpus[rng.below(corpus.count)]
        return a.steps.count <= b.steps.count ? a : b
    }

    func updateTime() {
        let d = clock.now - start
        stats.seconds = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// Runs `input` and judges it; returns the violations and whether it showed a new feature.
    public func evaluate(_ input: FuzzInput, cacheMessages: Bool, fresh: Bool = false) async -> ([Violation], Bool) {
        willRun?(input)
        stats.execs += 1
        let began = ContinuousClock.now
        let trace = fresh ? await target.confirm(input, until: runDeadline) : await target.run(input, until: runDeadline)
        if Self.debug {
            let ms = Int((ContinuousClock.now - began) / .milliseconds(1))
            if ms > 1_000 {
                let first = input.messages.first.map { String(decoding: $0.prefix(300), as: UTF8.self) } ?? ""
                FileHandle.standardError.write(Data("slow case: execution \(stats.execs)\(fresh ? " (confirmation)" : "") took \(ms) ms, \(input.steps.count) steps, first: \(first)\n".utf8))
            }
        }
        if trace.cutShort { stats.cutShort += 1 }
        var sink = FeatureSink()
        var violations = checker.check(trace, features: &sink)
        if !messageOracles.oracles.isEmpty {
            for m in input.messages {
                if cacheMessages {
                    let h = FuzzFinding.stableHash64(m)
                    guard checkedMessages.insert(h).inserted else { continue }
                    if checkedMessages.count > 1_000_000 { checkedMessages.removeAll(keepingCapacity: true) }
                }
                violations += messageOracles.check(m)
            }
        }
        var newFeatures = 0
        for h in sink.hashes {
            let bit = Int(truncatingIfNeeded: h & 0xF_FFFF)
            let word = bit >> 6, mask = UInt64(1) << UInt64(bit & 63)
            if featureBits[word] & mask == 0 {
                featureBits[word] |= mask
                stats.features += 1
                newFeatures += 1
            }
        }
        // A long case must show more than one new thing to be kept: it costs every time it is picked.
        return (violations, newFeatures > (input.steps.count > 300 ? 1 : 0))
    }

    func report(_ violations: [Violation], _ input: FuzzInput) async {
        // Black-box: a finding must show again in a fresh host process (or connection),
        // so it never depends on what earlier cases left behind; minimization runs
        // fresh too.
        let blackBox = !target.supportsToggles
        var confirmed: Set<String>?
        for v in violations where findings[v.key] == nil && !knownKeys.contains(v.key) {
            // A crash of a host that does not come back cannot be run again: the case as it ran.
            let once = v.oracle == .crash && !target.hostSurvivesCrash
            if blackBox && !once {
                if confirmed == nil {
                    if let maxRuns = configuration.maxRuns, stats.execs >= maxRuns { stats.unconfirmed += 1; continue }
                    confirmed = Set(await evaluate(input, cacheMessages: false, fresh: true).0.map(\.key))
                }
                guard confirmed!.contains(v.key) else {
                    stats.unconfirmed += 1
                    if Self.debug { FileHandle.standardError.write(Data("unconfirmed: \(v)\n".utf8)) }
                    continue
                }
            }
            let execsAtFind = stats.execs
            updateTime()
            let seconds = stats.seconds
            var minimized = input
            var complete = false
            if configuration.minimize && !once {
                // Minimization shares the run's budgets: the executions left under --runs,
                // and a quarter of --time (never past its end).
                var budget = configuration.minimizeBudget
                if let maxRuns = configuration.maxRuns {
                    budget = min(budget, Int(clamping: maxRuns > stats.execs ? maxRuns - stats.execs : 0))
                }
                var deadline: ContinuousClock.Instant?
                if let t = configuration.maxSeconds, let end = runDeadline {
                    let share = max(0, t * Self.minimizeShare - minimizingSeconds)
                    deadline = min(end, clock.now + .milliseconds(Int64(share * 1000)))
                }
                let began = clock.now
                var minimizer = Minimizer(budget: budget, deadline: deadline)
                if budget > 0 {
                    minimized = await minimizer.minimize(input) { candidate in
                        let (vs, _) = await self.evaluate(candidate, cacheMessages: false, fresh: blackBox)
                        return vs.contains { $0.key == v.key }
                    }
                }
                complete = budget > 0 && !minimizer.cutShort
                let d = clock.now - began
                minimizingSeconds += Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            }
            var violation = v
            if minimized.steps != input.steps {
                let (final, _) = await evaluate(minimized, cacheMessages: false, fresh: blackBox)
                violation = final.first { $0.key == v.key } ?? v
            }
            let f = FuzzFinding(violation: violation, input: minimized, originalSteps: input.steps.count,
                                originalBytes: input.byteCount, minimized: complete,
                                execs: execsAtFind, seconds: seconds)
            findings[v.key] = f
            stats.findings[v.oracle, default: 0] += 1
            onFinding?(f)
        }
    }
}

extension FuzzFinding {
    /// FNV-1a over bytes, 64 bits.
    static func stableHash64(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        return h
    }
}
