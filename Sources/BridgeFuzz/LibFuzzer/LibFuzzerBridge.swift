import BridgeJSON
import Foundation

/// Glue between the corpus and the libFuzzer targets in `tools/fuzz/`, used by
/// `tools/nightly-fuzz.sh` through `bridgescope fuzz --export-libfuzzer-seeds` and
/// `--import-crash`.
public enum LibFuzzerBridge {
    /// The libFuzzer targets and what their inputs are.
    public enum Harness: String, Sendable, CaseIterable {
        /// `fuzz-json`: one message.
        case json
        /// `fuzz-envelope`: one message.
        case envelope
        /// `fuzz-host`: a case file.
        case host
        /// `fuzz-websocket`: a frame sequence (FuzzHarness.messageAssembler).
        case websocket
        /// `fuzz-archive`: a session archive (`.bsz`).
        case archive
    }

    /// Writes libFuzzer seed folders under `folder`: `json/` and `envelope/` get every
    /// message of the corpus's seeds and regressions as its own file, `host/` every case
    /// file (header dropped), `websocket/` the hand-made frame sequences of
    /// `<corpus>/libfuzzer-seeds/websocket`. Returns the number of files per harness.
    @discardableResult
    public static func exportSeeds(corpus: String, to folder: String) throws -> [Harness: Int] {
        let store = CorpusStore(root: corpus)
        var counts: [Harness: Int] = [:]
        let fm = FileManager.default
        for h in Harness.allCases { try fm.createDirectory(atPath: "\(folder)/\(h.rawValue)", withIntermediateDirectories: true) }
        func put(_ h: Harness, _ bytes: [UInt8]) {
            let name = FuzzFinding.hex(FuzzFinding.stableHash64(bytes) & 0xFFFF_FFFF_FFFF)
            if fm.createFile(atPath: "\(folder)/\(h.rawValue)/\(name)", contents: Data(bytes)) { counts[h, default: 0] += 1 }
        }
        for input in store.loadSeeds() {
            put(.host, FuzzCase(input: input).serialized())
            for m in input.messages where m.count <= 1 << 16 {
                put(.json, m)
                put(.envelope, m)
            }
        }
        for path in (try? fm.contentsOfDirectory(atPath: "\(corpus)/libfuzzer-seeds/websocket")) ?? [] {
            if let d = fm.contents(atPath: "\(corpus)/libfuzzer-seeds/websocket/\(path)") { put(.websocket, [UInt8](d)) }
        }
        // The sample session archives beside the corpus (captures/*.bsz), when small.
        let captures = ((corpus as NSString).deletingLastPathComponent as NSString).appendingPathComponent("captures")
        for path in (try? fm.contentsOfDirectory(atPath: captures)) ?? [] where path.hasSuffix(".bsz") {
            if let d = fm.contents(atPath: "\(captures)/\(path)"), d.count <= 1 << 20 { put(.archive, [UInt8](d)) }
        }
        return counts
    }

    /// Turns a libFuzzer crash artifact into a regression file: the case (for `host`), or
    /// the message as a one-step case (`json`, `envelope`), with a `crash` header whose
    /// signature comes from `crashLine` (the `Fatal error` line of the log, numbers
    /// replaced by `N`); `websocket` artifacts are copied to `regressions/websocket/` as they
    /// are, unless `known-bugs/websocket/` holds one with the same signature. Returns the path
    /// written, or nil when a regression with that signature exists already.
    public static func importCrash(_ artifact: String, harness: Harness, crashLine: String?, corpus: String) throws -> String? {
        guard let data = FileManager.default.contents(atPath: artifact) else { throw FuzzError(.io, "cannot read \(artifact)") }
        let bytes = [UInt8](data)
        let store = CorpusStore(root: corpus)
        var line = crashLine ?? "no message"
        line = line.replacingOccurrences(of: #":[0-9]+:"#, with: ":", options: .regularExpression)
        line = line.replacingOccurrences(of: #"==[0-9]+=="#, with: "", options: .regularExpression)
        line = line.replacingOccurrences(of: #"[0-9]+"#, with: "N", options: .regularExpression)
            .trimmingCharacters(in: .whitespaces)
        let signature = "libfuzzer fuzz-\(harness.rawValue) \(line.prefix(200))"
        if harness == .websocket || harness == .archive {
            let dir = "\(store.regressions)/\(harness.rawValue)"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let name = "crash-\(FuzzFinding.hex(FuzzFinding.stableHash(signature))).bin"
            let path = "\(dir)/\(name)"
            // Known and waiting for their owner: corpus/known-bugs/websocket/ (same naming).
            guard !FileManager.default.fileExists(atPath: path),
                  !FileManager.default.fileExists(atPath: "\(corpus)/known-bugs/\(harness.rawValue)/\(name)") else { return nil }
            _ = FileManager.default.createFile(atPath: path, contents: data)
            return path
        }
        let input = harness == .host ? FuzzCase.parse(bytes).input : FuzzInput(messages: [bytes])
        let finding = FuzzFinding(violation: Violation(.crash, signature: signature, "libFuzzer target fuzz-\(harness.rawValue) crashed: \(line)"),
                                  input: input, originalSteps: input.steps.count, originalBytes: bytes.count, minimized: true,
                                  execs: 0, seconds: 0)
        guard !store.knownKeys().contains(finding.violation.key) else { return nil }
        return try store.write(finding, target: "libfuzzer:fuzz-\(harness.rawValue)", scenario: nil, seed: 0)
    }
}
