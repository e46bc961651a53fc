import Foundation

/// Finding and opening the inputs of `bridgescope analyze`.
public enum SessionInput {
    /// File name endings read as tap logs (JSON Lines).
    public static let tapLogExtensions = ["ndjson", "jsonl"]
    /// File name endings of session archives (not wired yet: see ``open(_:)``).
    public static let archiveExtensions = ["bsz"]

    // MARK: WIRING POINT: the one function that turns an input path into records.
    //
    // `.bsz` session archives are read by the BridgeArchive module (a separate branch).
    // When it lands, add the case below: open the archive with its reader and return a
    // source that maps each archive record to an `AnalysisEvent` (`.message` for
    // w2h/h2w lines with the `msg`/`text`/`b64` bytes, `.captureEvent` for open, close,
    // gap, drop, and a truncated or corrupt tail as `.error`), with `record` the line
    // number in the decompressed stream.

    /// Opens one input and returns its records. Throws ``AnalysisError`` with code
    /// `unreadable-input` when it cannot be opened and `unsupported-input` for a kind
    /// this build does not read.
    public static func open(_ path: String) throws(AnalysisError) -> any AnalysisEventSource {
        let ext = (path as NSString).pathExtension.lowercased()
        if tapLogExtensions.contains(ext) {
            return try TapLogSource(path: path)
        }
        if archiveExtensions.contains(ext) {
            throw AnalysisError(.unsupportedInput, "\(path): session archives (.bsz) are not readable by this build yet; export the session as JSON Lines (.ndjson)")
        }
        throw AnalysisError(.unsupportedInput, "\(path): unknown input kind; expected .ndjson or .jsonl (tap log) or .bsz (archive)")
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
