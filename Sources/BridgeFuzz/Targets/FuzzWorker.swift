import BridgeArchive
import BridgeJSON
import Foundation

/// The child side of in-process fuzzing (`bridgescope fuzz --worker`): runs the engine
/// against the in-process host, records each case in the shared crash slot before running
/// it, and reports on standard output, one JSON object per line:
/// `{"stats":{…}}` about once a second, `{"finding":{…}}` per new finding (the case in
/// base64 binary form), `{"done":{…}}` at the end. With `--replay` it instead reads
/// length-prefixed cases from standard input and answers one `{"violations":[…]}` line
/// per case (the supervisor's crash minimizer).
public enum FuzzWorker {
    /// Runs the fuzzing worker.
    public static func run(_ options: FuzzOptions, slotPath: String) async throws {
        let (scenario, _) = try options.loadScenario()
        let target = options.inProcessTarget(scenario)
        let store = CorpusStore(root: options.corpus, regressions: options.findingsDir, includeGenerated: options.includeGenerated)
        var seeds = store.loadSeeds()
        if let q = options.quarantine {
            let bad = Set(CorpusStore.caseFiles(in: q).compactMap { try? CorpusStore.readCase($0).input })
            seeds.removeAll { bad.contains($0) }
        }
        for a in options.seedArchives { seeds += try SeedArchive.load(a) }
        let slot = try SharedInputSlot(path: slotPath, create: false)
        var lastStats = ContinuousClock.now
        var config = FuzzConfiguration(seed: options.seed, mode: options.mode, maxRuns: options.runs, maxSeconds: options.seconds)
        config.maxFindings = options.maxFindings
        config.progress = { stats in
            let now = ContinuousClock.now
            guard now - lastStats >= .seconds(1) else { return }
            lastStats = now
            emit(["stats": statsJSON(stats)])
        }
        let engine = FuzzEngine(target: target, configuration: config)
        engine.knownKeys = store.knownKeys()
        engine.willRun = { slot.record($0) }
        engine.onFinding = { f in
            emit(["finding": .object(JSONObject([
                .init(key: "oracle", value: .string(f.violation.oracle.rawValue)),
                .init(key: "signature", value: .string(f.violation.signature)),
                .init(key: "rule", value: .string(f.violation.protocolRule)),
                .init(key: "message", value: .string(String(f.violation.message.prefix(4000)))),
                .init(key: "minimized", value: .bool(f.minimized)),
                .init(key: "originalSteps", value: .integer(Int64(f.originalSteps))),
                .init(key: "originalBytes", value: .integer(Int64(f.originalBytes))),
                .init(key: "execs", value: .integer(Int64(f.execs))),
                .init(key: "seconds", value: .number(JSONNumber(f.seconds) ?? JSONNumber(0))),
                .init(key: "case", value: .string(Base64.encode(f.input.binary()))),
            ]))])
        }
        if options.saveCorpus { engine.onNewCorpusEntry = { store.saveGenerated($0) } }
        await engine.addSeeds(seeds)
        await engine.run()
        emit(["done": statsJSON(engine.stats)])
    }

    /// Runs the replay worker: length-prefixed cases in, one result line per case out.
    public static func replay(_ options: FuzzOptions) throws {
        let (scenario, _) = try options.loadScenario()
        let target = options.inProcessTarget(scenario)
        let checker = target.checker()
        let input = FileHandle.standardInput
        while true {
            let header = input.readData(ofLength: 4)
            guard header.count == 4 else { return }
            let n = header.enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            let body = n > 0 ? input.readData(ofLength: n) : Data()
            guard body.count == n, let c = FuzzInput(binary: [UInt8](body)) else { return }
            var sink = FeatureSink()
            var violations = checker.check(target.execute(c), features: &sink)
            for m in c.messages { violations += MessageOracles().check(m) }
            emit(["violations": .array(violations.map { .string($0.key) })])
        }
    }

    static func statsJSON(_ s: FuzzEngine.Stats) -> JSONValue {
        .object(JSONObject([
            .init(key: "execs", value: .integer(Int64(s.execs))),
            .init(key: "corpus", value: .integer(Int64(s.corpus))),
            .init(key: "features", value: .integer(Int64(s.features))),
            .init(key: "seconds", value: .number(JSONNumber(s.seconds) ?? JSONNumber(0))),
        ]))
    }

    static func emit(_ pairs: KeyValuePairs<String, JSONValue>) {
        var bytes = JSONWriter().bytes(.object(JSONObject(pairs.map { .init(key: $0.key, value: $0.value) })))
        bytes.append(0x0A)
        FileHandle.standardOutput.write(Data(bytes))
    }
}
