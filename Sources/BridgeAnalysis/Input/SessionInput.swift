import Foundation

/// Finding and opening the inputs of `bridgescope analyze`.
public enum SessionInput {
    /// File name endings read as tap logs (JSON Lines).
    public static let tapLogExtensions = ["ndjson", "jsonl"]
    /// File name endings of session archives (docs/FORMAT.md).
    public static let archiveExtensions = ["bsz"]

    /// Opens one input and returns its records: a session archive (`.bsz`) through
    /// ``ArchiveEventSource``, a tap log (`.ndjson`, `.jsonl`) through ``TapLogSource``.
    /// Throws ``AnalysisError`` with code `unreadable-input` when it cannot be opened (for
    /// an archive: not zstd, no valid header, an unsupported format version) and
    /// `unsupported-input` for another file name ending.
    public static func open(_ path: String) throws(AnalysisError) -> any AnalysisEventSource {
        let ext = (path as NSString).pathExtension.lowercased()
        if tapLogExtensions.contains(ext) {
            return try TapLogSource(path: path)
        }
        if archiveExtensions.contains(ext) {
            return try ArchiveEventSource(path: path)
        }
        throw AnalysisError(.unsupportedInput, "\(path): unknown input kind; expected .bsz (session archive) or .ndjson or .jsonl (tap log)")
    }

    /// Expands arguments into input files: files are kept as given, directories are
    /// searched (recursively, sorted) for files with a known ending. Throws
    /// `unreadable-input` for a path that does not exist.
    public static func expand(_ paths: [String]) throws(AnalysisError) -> [String] {
        var out: [String] = []
        let fm = FileManager.default
        for p in paths {
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: p, isDirectory: &isDir) else {
                throw AnalysisError(.unreadableInput, "\(p): no such file or directory")
            }
            guard isDir.boolValue else { out.append(p); continue }
            let known = tapLogExtensions + archiveExtensions
            var found: [String] = []
            if let e = fm.enumerator(atPath: p) {
                while let rel = e.nextObject() as? String {
                    if known.contains((rel as NSString).pathExtension.lowercased()) {
                        found.append((p as NSString).appendingPathComponent(rel))
                    }
                }
            }
            out.append(contentsOf: found.sorted())
        }
        return out
    }
}
