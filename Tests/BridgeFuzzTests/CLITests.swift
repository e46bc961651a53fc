import BridgeFuzz
import BridgeTestSupport
import Foundation
import Testing

/// `bridgescope fuzz` end to end, on the debug binary `swift build` made: worker
/// processes, the crash path, exit statuses, report formats, the stdio target.
@Suite(.serialized) struct CLITests {
    /// A scratch corpus with the passport journey as its only seed.
    static func scratchCorpus(extra: String? = nil) throws -> String {
        let dir = TestScratch.temporaryPath + "bridgescope-fuzz-cli-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir + "/seeds", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Corpus.root.appendingPathComponent("seeds/journey-passport.jsonl").path,
                                         toPath: dir + "/seeds/journey-passport.jsonl")
        if let extra { try extra.write(toFile: dir + "/seeds/extra.jsonl", atomically: true, encoding: .utf8) }
        return dir
    }

    @Test func aTrapInTheWorkerIsCaughtMinimizedWrittenAndReproducible() throws {
        let corpus = try Self.scratchCorpus(extra: #"{"msg":{"version":"1.0","correlationId":"TRAP-ME","type":"request","timestamp":1700000000000,"payload":{"action":"nfc.read"}}}"#)
        let r = try runBridgescope(["fuzz", "--corpus", corpus, "--time", "4s", "--seed", "5", "--selftest-trap", "TRAP-ME", "--format", "json"])
        #expect(r.status == 1, "\(r.stderr)")
        let files = CorpusStore.caseFiles(in: corpus + "/regressions")
        #expect(files.count == 1)
        let c = try CorpusStore.readCase(try #require(files.first))
        #expect(c.oracle == .crash)
        #expect(c.signature?.contains("selftest trap") == true)
        #expect(c.input.steps.count == 1)  // minimized to the one message with the marker
        #expect(String(decoding: c.input.messages[0], as: UTF8.self).contains("TRAP-ME"))
        #expect(r.stdout.contains("\"oracle\":\"crash\""))
        // A second run knows the bug: nothing new, exit 0.
        let again = try runBridgescope(["fuzz", "--corpus", corpus, "--runs", "50", "--seed", "6", "--selftest-trap", "TRAP-ME"])
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        // Without the trap the case is clean.
        let replay = try runBridgescope(["fuzz", "--reproduce", files[0]])
        #expect(replay.status == 0)
        #expect(replay.stdout.contains("no violation"))
    }

    /// `--no-generated`: the cases `--save-corpus` kept on this machine are left out of
    /// the seeds (here, the only case that trips the self-test trap lives there), and by
    /// default they are in.
    @Test func noGeneratedLeavesTheMachinesKeptCasesOut() throws {
        let corpus = try Self.scratchCorpus()
        try FileManager.default.createDirectory(atPath: corpus + "/generated/bridgescope", withIntermediateDirectories: true)
        try #"{"msg":{"version":"1.0","correlationId":"TRAP-KEPT","type":"request","timestamp":1700000000000,"payload":{"action":"nfc.read"}}}"#
            .write(toFile: corpus + "/generated/bridgescope/kept.jsonl", atomically: true, encoding: .utf8)
        let without = try runBridgescope(["fuzz", "--corpus", corpus, "--runs", "30", "--seed", "3", "--no-generated",
                                          "--selftest-trap", "TRAP-KEPT", "--findings", corpus + "/found-without"])
        #expect(without.status == 0, "\(without.stdout)\(without.stderr)")
        #expect(CorpusStore.caseFiles(in: corpus + "/found-without").isEmpty)
        let with = try runBridgescope(["fuzz", "--corpus", corpus, "--runs", "30", "--seed", "3",
                                       "--selftest-trap", "TRAP-KEPT", "--findings", corpus + "/found-with"])
        #expect(with.status == 1, "\(with.stdout)\(with.stderr)")
        #expect(CorpusStore.caseFiles(in: corpus + "/found-with").count == 1)
        #expect(CorpusStore(root: corpus, includeGenerated: false).loadSeeds().count == 1)
        #expect(CorpusStore(root: corpus).loadSeeds().count == 2)
    }

    /// FuzzLimits.maxCaseFileBytes (docs/FUZZING.md: 64 MiB per case file).
    static let caseLimit = 64 << 20

    /// A case file that cannot be used (over the size limit, unreadable, no step) is named
    /// on standard error, not dropped from the seeds without a word.
    @Test func aSeedThatCannotBeUsedIsNamed() throws {
        let corpus = try Self.scratchCorpus()
        FileManager.default.createFile(atPath: corpus + "/seeds/empty.jsonl", contents: Data())
        let big = corpus + "/seeds/huge.jsonl"
        FileManager.default.createFile(atPath: big, contents: Data())
        let handle = try #require(FileHandle(forWritingAtPath: big))
        try handle.truncate(atOffset: UInt64(Self.caseLimit + 1))  // sparse: no 64 MiB written
        try handle.close()
        #expect(CorpusStore(root: corpus).skippedSeedFiles().count == 2)
        let r = try runBridgescope(["fuzz", "--corpus", corpus, "--runs", "10", "--seed", "1"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains("warning: \(corpus)/seeds/empty.jsonl holds no step; not used as a seed"), "\(r.stderr)")
        #expect(r.stderr.contains("huge.jsonl is \(Self.caseLimit + 1) bytes, over the case file limit"), "\(r.stderr)")
        #expect(!r.stderr.contains("journey-passport"), "\(r.stderr)")
    }

    /// The smoke run of issue 8: 20 seconds of `bridgescope fuzz` over the whole seed
    /// corpus against the reference host, every oracle on. The shipped host must come out
    /// clean; findings would land in a scratch folder, never in the repository.
    @Test func twentySecondSmokeOverTheRealCorpusFindsNothing() throws {
        let findings = TestScratch.temporaryPath + "bridgescope-fuzz-smoke-\(UInt32.random(in: 0...UInt32.max))"
        let r = try runBridgescope(["fuzz", "--corpus", Corpus.root.path, "--time", "20s", "--seed", "1",
                                    "--format", "json", "--findings", findings])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect((report?["findings"] as? [Any])?.isEmpty == true, "\(r.stdout)")
        #expect((report?["execs"] as? Int ?? 0) > 0, "the smoke run executed nothing: \(r.stdout)")
        #expect(CorpusStore.caseFiles(in: findings).isEmpty)
    }

    @Test func cleanRunFormatsAndUsageErrors() throws {
        let corpus = try Self.scratchCorpus()
        let junit = try runBridgescope(["fuzz", "--corpus", corpus, "--runs", "40", "--format", "junit"])
        #expect(junit.status == 0, "\(junit.stderr)")
        #expect(junit.stdout.contains("<testsuite name=\"bridgescope-fuzz inproc\""))
        #expect(junit.stdout.contains("<testcase classname=\"bridgescope.fuzz\" name=\"one-response\""))
        let text = try runBridgescope(["fuzz", "--corpus", corpus, "--runs", "20"])
        #expect(text.stdout.contains("no new findings"))
        for bad in [["--format", "xml"], ["--time", "ten"], ["--target", "tcp://x"], ["--jobs", "0"], ["--mode", "x"], ["--max-findings", "0"]] {
            #expect(try runBridgescope(["fuzz", "--corpus", corpus] + bad).status == 2, "\(bad)")
        }
        #expect(try runBridgescope(["fuzz", "--reproduce", "/nonexistent.jsonl"]).status == 2)
        #expect(try runBridgescope(["fuzz", "--scenario", "/nonexistent.json", "--runs", "1"]).status == 2)
    }

    @Test func stdioTargetFuzzesTheRealHostBlackBox() throws {
        let corpus = try Self.scratchCorpus()
        let host = "\(ProjectPaths.binary.path) host --stdio"
        let r = try runBridgescope(["fuzz", "--corpus", corpus, "--target", "stdio:\(host)", "--runs", "3", "--format", "json"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("\"findings\":[]"))
        #expect(r.stdout.contains("\"target\":\"stdio:"))
    }

    @Test func webSocketTargetFuzzesTheRealHostBlackBox() throws {
        let corpus = try Self.scratchCorpus()
        // Port 0: the host picks a free port and names it once it listens (a random port
        // could be one the kernel handed to another test's connection).
        let host = Process()
        host.executableURL = ProjectPaths.binary
        host.arguments = ["host", "--listen", "127.0.0.1:0", "--log-level", "warning"]
        host.standardOutput = FileHandle.nullDevice
        let err = Pipe()
        host.standardError = err
        try host.run()
        defer { host.terminate(); host.waitUntilExit() }
        var text = "", port: Int?
        let deadline = Date().addingTimeInterval(60)
        while port == nil, Date() < deadline {
            let data = err.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            if let r = text.range(of: "listening on ws://127.0.0.1:"), let end = text[r.upperBound...].firstIndex(of: "/") {
                port = Int(text[r.upperBound..<end])
            }
        }
        err.fileHandleForReading.readabilityHandler = { _ = $0.availableData }
        guard let port else {
            Issue.record("the host did not start: \(text)")
            return
        }
        let r = try runBridgescope(["fuzz", "--corpus", corpus, "--target", "ws://127.0.0.1:\(port)/bridge", "--runs", "3", "--format", "json"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("\"findings\":[]"))
        #expect(host.isRunning, "the host died while being fuzzed")
        // Nothing listening: a clear error and exit 2.
        let down = try runBridgescope(["fuzz", "--corpus", corpus, "--target", "ws://127.0.0.1:1/bridge", "--runs", "1"])
        #expect(down.status == 2)
        #expect(down.stderr.contains("cannot connect"))
    }

    @Test func exportsLibFuzzerSeeds() throws {
        // A scratch project: corpus/ (two seeds, the frame sequences) beside captures/ (one archive).
        let project = TestScratch.temporaryPath + "bridgescope-lf-\(UInt32.random(in: 0...UInt32.max))"
        let fm = FileManager.default
        try fm.createDirectory(atPath: project + "/corpus/seeds", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: project + "/corpus/libfuzzer-seeds", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: project + "/captures", withIntermediateDirectories: true)
        for seed in ["journey-passport.jsonl", "hostile-strings.jsonl"] {
            try fm.copyItem(atPath: Corpus.root.appendingPathComponent("seeds/\(seed)").path, toPath: project + "/corpus/seeds/\(seed)")
        }
        try fm.copyItem(atPath: Corpus.root.appendingPathComponent("libfuzzer-seeds/websocket").path, toPath: project + "/corpus/libfuzzer-seeds/websocket")
        try fm.copyItem(atPath: Corpus.root.deletingLastPathComponent().appendingPathComponent("captures/happy-passport.bsz").path,
                        toPath: project + "/captures/happy-passport.bsz")
        let out = project + "/out"
        let r = try runBridgescope(["fuzz", "--corpus", project + "/corpus", "--export-libfuzzer-seeds", out])
        #expect(r.status == 0)
        for (h, least) in [("json", 10), ("envelope", 10), ("host", 2), ("websocket", 8), ("archive", 1)] {
            #expect(((try? fm.contentsOfDirectory(atPath: out + "/" + h)) ?? []).count >= least, "\(h)")
        }
    }
}
