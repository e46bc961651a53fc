import Foundation

/// Where the project's resources (`tools/scenarios`, `tools/journey`, `corpus`) are found,
/// wherever `bridgescope` runs from: the one search path, documented in the README.
///
/// In order: `$BRIDGESCOPE_HOME/<relative>`; the current directory; the directory of the
/// running executable (read from the system, not from `argv[0]`, so a binary found
/// through `PATH` or a symbolic link works) and up to four of its parents (a checkout's
/// `.build/<triple>/<config>/bridgescope`); then `<prefix>/share/bridgescope/<relative>`
/// beside an installed `<prefix>/bin/bridgescope`.
package enum ResourceLocator {
    /// The directories searched for `relative`, existing or not, in order.
    package static func candidates(_ relative: String) -> [String] {
        var out: [String] = []
        if let home = ProcessInfo.processInfo.environment["BRIDGESCOPE_HOME"], !home.isEmpty {
            out.append((home as NSString).appendingPathComponent(relative))
        }
        out.append((FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(relative))
        if var url = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            let bin = url.deletingLastPathComponent()
            for _ in 0..<5 {
                url.deleteLastPathComponent()
                out.append(url.appendingPathComponent(relative).path)
            }
            out.append(bin.deletingLastPathComponent().appendingPathComponent("share/bridgescope").appendingPathComponent(relative).path)
        }
        var seen = Set<String>()
        return out.filter { seen.insert($0).inserted }
    }

    /// The first candidate for `relative` that exists (and holds `marker`, when given).
    package static func find(_ relative: String, holding marker: String? = nil) -> String? {
        candidates(relative).first { dir in
            FileManager.default.fileExists(atPath: marker.map { (dir as NSString).appendingPathComponent($0) } ?? dir)
        }
    }

    /// A sentence for an error: where `relative` was looked for.
    package static func searched(_ relative: String) -> String {
        "looked in " + candidates(relative).joined(separator: ", ") + " (set BRIDGESCOPE_HOME to the checkout or install prefix)"
    }
}
