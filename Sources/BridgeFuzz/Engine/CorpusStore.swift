import BridgeJSON
import Foundation

/// The corpus folder (`corpus/` by default): hand-made seeds in `seeds/`, every finding
/// ever made in `regressions/`, and cases the fuzzer found interesting in
/// `generated/<source>/` (written only when asked). See docs/FUZZING.md §"Corpus".
public struct CorpusStore: Sendable {
    /// The corpus folder.
    public let root: String
    /// Where findings are written (default `<root>/regressions`).
    public let regressions: String
    /// Whether ``loadSeeds()`` reads `generated/bridgescope/` too.
    public let includeGenerated: Bool

    /// Creates a store over `root`; `includeGenerated: false` leaves the cases kept on
    /// this machine (`generated/bridgescope/`) out of the seeds.
    public init(root: String, regressions: String? = nil, includeGenerated: Bool = true) {
        self.root = root
        self.regressions = regressions ?? (root as NSString).appendingPathComponent("regressions")
        self.includeGenerated = includeGenerated
    }

    /// Every case file (`*.jsonl`) in a folder, sorted by name.
    public static func caseFiles(in folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".jsonl") }.sorted().map { (folder as NSString).appendingPathComponent($0) }
    }

    /// Reads one case file (at most ``FuzzLimits/maxCaseFileBytes``).
    public static func readCase(_ path: String) throws -> FuzzCase {
        guard let attrs = try? FileManager.default.attributesOfItem(atPath: path) else {
            throw FuzzError(.io, "cannot read \(path): no such file")
        }
        if let size = attrs[.size] as? Int, size > FuzzLimits.maxCaseFileBytes {
            throw FuzzError(.io, "\(path) is \(size) bytes, over the case file limit of \(FuzzLimits.maxCaseFileBytes)")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw FuzzError(.io, "cannot read \(path)") }
        return FuzzCase.parse([UInt8](data))
    }

    /// The folders seeds come from: `seeds/`, `regressions/` and (unless left out)
    /// `generated/bridgescope/`.
    var seedFolders: [String] {
        var folders = [(root as NSString).appendingPathComponent("seeds"), regressions]
        if includeGenerated { folders.append((root as NSString).appendingPathComponent("generated/bridgescope")) }
        return folders
    }

    /// The seed cases of ``seedFolders``; a file that cannot be read or holds no step is
    /// passed by (``skippedSeedFiles()`` says which and why).
    public func loadSeeds() -> [FuzzInput] { readSeeds().inputs }

    /// Why ``loadSeeds()`` passes by some case files of ``seedFolders`` (unreadable,
    /// over ``FuzzLimits/maxCaseFileBytes``, no step), a sentence naming the file each,
    /// for the CLI to warn about: an edited seed must not drop out of a run unnoticed.
    public func skippedSeedFiles() -> [String] { readSeeds().skipped }

    /// One pass over ``seedFolders``: the cases read, and a sentence for each file passed by.
    func readSeeds() -> (inputs: [FuzzInput], skipped: [String]) {
        var inputs: [FuzzInput] = [], skipped: [String] = []
        for path in seedFolders.flatMap({ Self.caseFiles(in: $0) }) {
            do {
                let input = try Self.readCase(path).input
                if input.steps.isEmpty { skipped.append("\(path) holds no step") } else { inputs.append(input) }
            } catch let e as FuzzError {
                skipped.append(e.message)
            } catch {
                skipped.append("\(path): \(error)")
            }
        }
        return (inputs, skipped)
    }

    /// `oracle signature` of every regression file, so old findings are not reported as new.
    func knownKeys() -> Set<String> {
        Set(Self.caseFiles(in: regressions).compactMap { path in
            guard let c = try? Self.readCase(path), let o = c.oracle, let s = c.signature else { return nil }
            return "\(o.rawValue) \(s)"
        })
    }

    /// Writes a finding as `regressions/<oracle>-<hash>.jsonl`; returns the path, or nil
    /// when a file of that name exists already (the same bug).
    public func write(_ finding: FuzzFinding, target: String, scenario: JSONValue?, seed: UInt64) throws -> String? {
        try FileManager.default.createDirectory(atPath: regressions, withIntermediateDirectories: true)
        let path = (regressions as NSString).appendingPathComponent(finding.fileName)
        guard !FileManager.default.fileExists(atPath: path) else { return nil }
        let c = finding.caseFile(path: path, target: target, scenario: scenario, seed: seed)
        guard FileManager.default.createFile(atPath: path, contents: Data(c.serialized())) else {
            throw FuzzError(.io, "cannot write \(path)")
        }
        return path
    }

    /// Saves an interesting case under `generated/bridgescope/` (named by content hash).
    func saveGenerated(_ input: FuzzInput) {
        let dir = (root as NSString).appendingPathComponent("generated/bridgescope")
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let bytes = FuzzCase(input: input).serialized()
        let name = FuzzFinding.hex(FuzzFinding.stableHash64(bytes) & 0xFFFF_FFFF_FFFF) + ".jsonl"
        _ = FileManager.default.createFile(atPath: (dir as NSString).appendingPathComponent(name), contents: Data(bytes))
    }
}
