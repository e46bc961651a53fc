import BridgeArchive
import Foundation

/// Finding and opening the inputs of `bridgescope analyze`.
public enum SessionInput {
    /// File name endings read as tap logs (JSON Lines).
    static let tapLogExtensions = ["ndjson", "jsonl"]
    /// File name endings of session archives (docs/FORMAT.md).
    static let archiveExtensions = ["bsz"]

    /// Opens one input and returns its records, judging it by its content, not its name
    /// (``InputKind``): a session archive through ``ArchiveEventSource``, a tap log through
    /// ``TapLogSource``. `-` reads standard input; a FIFO is opened and read once.
    /// Throws ``AnalysisError`` `unreadable-input` when it cannot be opened or read (for an
    /// archive: no valid header, an unsupported format version) and `unsupported-input`
    /// for anything else (a packet capture, bare envelopes, ...), saying what it is and
    /// which command reads it. With `readAhead`, an archive is decompressed on a thread of
    /// its own.
    public static func open(_ path: String, readAhead: Bool = false) throws(AnalysisError) -> any AnalysisEventSource {
        let input = try judge(path)
        switch input.kind {
        case .archive:
            return try ArchiveEventSource(source: input, readAhead: readAhead)
        case .tapLog:
            return TapLogSource(source: input, name: input.name)
        default:
            throw AnalysisError(.unsupportedInput, "\(input.name) is \(input.kind), not a session archive or a tap log: \(input.kind.advice(path: path))")
        }
    }

    /// Opens `path` (`-`: standard input) and judges it by its first bytes; throws
    /// `unreadable-input` when it cannot be opened or read.
    static func judge(_ path: String) throws(AnalysisError) -> PeekedInput {
        do {
            return try PeekedInput(path: path)
        } catch {
            throw AnalysisError(.unreadableInput, "\(path): \(error.message)")
        }
    }

    /// What a directory search left out, and why.
    public struct Skipped: Sendable, Hashable {
        /// The file.
        public var path: String
        /// What it is.
        public var kind: InputKind
    }

    /// Expands arguments into input files: files (and `-`) are kept as given and judged
    /// when opened; directories are searched (recursively, sorted) and every regular file
    /// in them is judged by its content: archives and tap logs are kept, others are
    /// returned as ``Skipped`` so the caller can say so. Throws `unreadable-input` for a
    /// path that does not exist.
    public static func expand(_ paths: [String]) throws(AnalysisError) -> (inputs: [String], skipped: [Skipped]) {
        var out: [String] = []
        var skipped: [Skipped] = []
        let fm = FileManager.default
        for p in paths {
            if p == "-" { out.append(p); continue }
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: p, isDirectory: &isDir) else {
                throw AnalysisError(.unreadableInput, "\(p): no such file or directory")
            }
            guard isDir.boolValue else { out.append(p); continue }
            var found: [String] = []
            if let e = fm.enumerator(atPath: p) {
                while let rel = e.nextObject() as? String {
                    let full = (p as NSString).appendingPathComponent(rel)
                    guard (e.fileAttributes?[.type] as? FileAttributeType) == .typeRegular,
                          !rel.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else { continue }
                    found.append(full)
                }
            }
            for f in found.sorted() {
                let kind = (try? PeekedInput(path: f))?.kind ?? .unknown
                if kind == .archive || kind == .tapLog { out.append(f) } else { skipped.append(Skipped(path: f, kind: kind)) }
            }
        }
        return (out, skipped)
    }
}
