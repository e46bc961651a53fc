import BridgeTestSupport
import Foundation
import Testing

/// The shell given no display starts one itself (docs/WEBKIT.md, "A display"): Xvfb, or
/// broadwayd when Xvfb is not installed; the journey runs on it, and the server is stopped
/// and waited for (none left running, none left a zombie under PID 1).
@Suite(.serialized, .enabled(if: webkitEnabled, "bridgescope-webkit is not built: make webkit"))
struct WebKitDisplayTests {
    /// `env -u` takes away every display the shell could be given; the log level makes it
    /// say which display it used (`display: ...`, on stderr).
    static let noDisplay = ["-u", "DISPLAY", "-u", "WAYLAND_DISPLAY", "-u", "GDK_BACKEND", "-u", "BROADWAY_DISPLAY"]

    func runWithoutDisplay(_ command: [String], path: String? = nil) throws -> ProcessResult {
        let env = (path.map { ["PATH=\($0)"] } ?? []) + ["BRIDGESCOPE_LOG_LEVEL=info"]
        return try runProcess(URL(fileURLWithPath: "/usr/bin/env"), Self.noDisplay + env + command)
    }

    /// The display line of the shell's log (`display: Xvfb on :N (started)`).
    func displayLine(_ r: ProcessResult) -> String {
        r.stderr.split(separator: "\n").first { $0.contains("[WebKitShell] display: ") }.map(String.init) ?? "(none)"
    }

    @Test func withoutADisplayTheShellStartsXvfbAndStopsIt() throws {
        let leftovers = LeftoverProcesses()
        let pages = try JourneyPageServer()
        let r = try runWithoutDisplay([webkitShell.path, pages.url("passport.html"), "--timeout", "60"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stdout.contains("journey complete"), "\(r.stdout.suffix(800))")
        let line = displayLine(r)
        #expect(line.range(of: #"display: Xvfb on :[0-9]+ \(started\)"#, options: .regularExpression) != nil, "\(line)\n\(r.stderr.suffix(1500))")
        let left = leftovers.appeared()
        #expect(left.isEmpty, "left behind: \(left)")
    }

    /// Xvfb not installed: the shell falls back to broadwayd. The shell finds Xvfb on PATH
    /// and in /usr/bin and /usr/sbin, so the run gets a PATH of its own (broadwayd and
    /// setpriv only) and a mount namespace (`unshare -m`) in which an empty, non-executable
    /// file is bound over /usr/bin/Xvfb (and /usr/sbin/Xvfb).
    @Test(.enabled(if: mountNamespaceAllowed, "hiding Xvfb needs a mount namespace (unshare -m), which this machine refuses"))
    func withoutXvfbTheShellStartsBroadwaydAndReapsIt() throws {
        let fm = FileManager.default
        func tool(_ name: String, _ dirs: [String] = ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]) -> String? {
            dirs.map { "\($0)/\(name)" }.first { fm.isExecutableFile(atPath: $0) }
        }
        let broadwayd = try #require(tool("broadwayd"), "broadwayd is not installed (apt-get install libgtk-3-bin)")
        let unshare = try #require(tool("unshare")), mount = try #require(tool("mount"))
        let dir = TestScratch.rootURL.appendingPathComponent("webkit-broadway-\(getpid())")
        let bin = dir.appendingPathComponent("bin")
        try? fm.removeItem(at: dir)
        try fm.createDirectory(at: bin, withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: bin.appendingPathComponent("broadwayd").path, withDestinationPath: broadwayd)
        if let setpriv = tool("setpriv") {
            try fm.createSymbolicLink(atPath: bin.appendingPathComponent("setpriv").path, withDestinationPath: setpriv)
        }
        let empty = dir.appendingPathComponent("no-Xvfb").path
        #expect(fm.createFile(atPath: empty, contents: Data(), attributes: [.posixPermissions: 0o644]))
        let hidden = ["/usr/bin/Xvfb", "/usr/sbin/Xvfb"].filter { fm.fileExists(atPath: $0) }
        let mounts = hidden.map { "\(mount) --bind \(empty) \($0) && " }.joined()
        // As root the mount namespace is enough; otherwise a user namespace maps the user to root.
        let namespace = getuid() == 0 ? ["-m"] : ["-r", "-m"]
        let pages = try JourneyPageServer()
        let leftovers = LeftoverProcesses()
        let r = try runWithoutDisplay([unshare] + namespace + ["/bin/sh", "-c", mounts + #"exec "$0" "$@""#,
                                      webkitShell.path, pages.url("passport.html"), "--timeout", "60"], path: bin.path)
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stdout.contains("journey complete"), "\(r.stdout.suffix(800))")
        let line = displayLine(r)
        #expect(line.range(of: #"display: broadwayd on :[0-9]+ \(started\)"#, options: .regularExpression) != nil, "\(line)\n\(r.stderr.suffix(1500))")
        let left = leftovers.appeared()
        #expect(left.isEmpty, "left behind: \(left)")
    }
}

/// Whether this process may make a mount namespace (root, or a user namespace): the broadwayd
/// test hides Xvfb in one. Containers without the right refuse it; that is no fault of the shell.
let mountNamespaceAllowed: Bool = {
    guard let unshare = ["/usr/bin/unshare", "/bin/unshare"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        return false
    }
    let args = (getuid() == 0 ? ["-m"] : ["-r", "-m"]) + ["/bin/true"]
    return (try? runProcess(URL(fileURLWithPath: unshare), args))?.status == 0
}()
