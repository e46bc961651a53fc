import BridgeCapture
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds and reads the JavaScript tap (`tools/taps/js/bridge-tap.js`) that
/// `record --cdp` injects.
public enum CDPTapScript {
    /// The tap's path inside the repository.
    public static let relativePath = "tools/taps/js/bridge-tap.js"

    /// The tap's source: `BRIDGESCOPE_TAP_JS` when set, else the first
    /// `tools/taps/js/bridge-tap.js` found from the working directory or up to four
    /// folders above the executable. Throws ``CaptureError`` naming where it looked.
    public static func load(executable: String = CommandLine.arguments.first ?? "") throws(CaptureError) -> String {
        var candidates: [String] = []
        if let env = getenv("BRIDGESCOPE_TAP_JS") { candidates.append(String(cString: env)) }
        candidates.append(relativePath)
        var dir = executable
        if let resolved = realpath(executable, nil) {
            dir = String(cString: resolved)
            free(resolved)
        }
        for _ in 0..<5 {
            guard let slash = dir.lastIndex(of: "/") else { break }
            dir = String(dir[..<slash])
            candidates.append((dir.isEmpty ? "" : dir) + "/" + relativePath)
        }
        for path in candidates where access(path, R_OK) == 0 {
            if let text = ChromiumLauncher.read(path), text.contains("bridgescope") { return text }
        }
        throw CaptureError(.cdp, "the JavaScript tap \(relativePath) was not found (looked in: "
            + candidates.joined(separator: ", ") + "); run from the repository or set BRIDGESCOPE_TAP_JS=/path/to/bridge-tap.js")
    }
}
