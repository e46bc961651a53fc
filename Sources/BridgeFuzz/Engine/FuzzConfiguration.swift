/// How a fuzzing run is set up.
public struct FuzzConfiguration: @unchecked Sendable {
    /// The seed of the run's one random generator.
    public var seed: UInt64
    /// Structure-aware or plain bytes.
    public var mode: FuzzMutator.Mode
    /// The oracles to run.
    public var oracles: Set<Oracle>
    /// Stop after this many executions.
    public var maxRuns: UInt64?
    /// Stop after this many seconds.
    public var maxSeconds: Double?
    /// Stop once this many new findings were reported (`--max-findings`), when set.
    public var maxFindings: Int?
    /// Minimize findings. Default true.
    public var minimize: Bool
    /// Executions one minimization may spend. Default 3,000.
    var minimizeBudget: Int
    /// Largest corpus kept in memory. Default 20,000.
    var maxCorpus: Int
    /// Whether toggles may be inserted (when the target supports them). Default true.
    public var toggles: Bool
    /// Mutate single messages only (no sequence mutations): the speed benchmark's
    /// single-envelope mode, and the JSON and decoder libFuzzer targets' custom mutator.
    public var singleMessage: Bool
    /// Called about every 8 executions with the statistics.
    public var progress: ((FuzzEngine.Stats) -> Void)?

    /// Creates a configuration.
    public init(seed: UInt64 = 1, mode: FuzzMutator.Mode = .structureAware, oracles: Set<Oracle> = Set(Oracle.all),
                maxRuns: UInt64? = nil, maxSeconds: Double? = nil, minimize: Bool = true, minimizeBudget: Int = 3000,
                maxCorpus: Int = 20_000, toggles: Bool = true, singleMessage: Bool = false, progress: ((FuzzEngine.Stats) -> Void)? = nil) {
        self.seed = seed
        self.mode = mode
        self.oracles = oracles
        self.maxRuns = maxRuns
        self.maxSeconds = maxSeconds
        self.minimize = minimize
        self.minimizeBudget = minimizeBudget
        self.maxCorpus = maxCorpus
        self.toggles = toggles
        self.singleMessage = singleMessage
        self.progress = progress
    }
}
