import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Scratch folders and files for tests, all in one folder per test process
/// (`$TMPDIR/bridgescope-tests-<pid>`), which is removed when the process exits. The
/// folders of earlier test processes that are gone (killed, crashed) are removed on
/// first use, so `make test` run again and again leaves nothing in the temporary folder.
public enum TestScratch {
    /// The prefix of every test process's folder.
    static let prefix = "bridgescope-tests-"

    /// This process's folder, made (and earlier processes' leftovers removed) on first use.
    public static let root: String = {
        let base = FileManager.default.temporaryDirectory.path
        sweep(base)
        let path = base + "/" + prefix + String(getpid())
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { TestScratch.removeRoot() }
        return path
    }()

    /// ``root`` as a file URL: what tests use where they would use the temporary folder.
    public static var rootURL: URL { URL(fileURLWithPath: root, isDirectory: true) }

    /// ``root`` with a trailing slash, as `NSTemporaryDirectory()` gives the temporary folder.
    public static var temporaryPath: String { root + "/" }

    /// Removes this process's folder (at exit).
    static func removeRoot() {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Removes the folders of test processes that no longer run.
    static func sweep(_ base: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: base) else { return }
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(atPath: base + "/" + name)
            }
        }
    }
}
