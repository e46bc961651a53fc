import BridgeCapture
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts headless Chromium for `record --launch`: a free port (`--remote-debugging-port=0`,
/// read back from `DevToolsActivePort`), a throwaway profile, `about:blank` (the
/// recorder navigates the page once the tap is installed), and stops it at the end.
final class ChromiumLauncher {
    /// The DevTools endpoint of the started browser.
    public let endpoint: CDPEndpoint
    /// The browser's process id.
    public let pid: pid_t
    private let profile: String
    private var stopped = false

    /// The browsers looked for on `PATH`, in order.
    public static let candidates = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]

    /// Starts the browser (`executable`, or the first of ``candidates`` on `PATH`).
    public init(executable: String? = nil) throws(CaptureError) {
        guard let binary = executable ?? Self.find() else {
            throw CaptureError(.cdp, "--launch: no Chromium found on PATH (looked for \(Self.candidates.joined(separator: ", "))); "
                + "install it with tools/setup.sh --with-browser (apt-get install chromium)")
        }
        var template = Array("/tmp/bridgescope-cdp.XXXXXX".utf8CString)
        guard let dir = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CaptureError(.cdp, "--launch: cannot create a profile folder in /tmp: \(String(cString: strerror(errno)))")
        }
        profile = String(cString: dir)
        let args = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
                    "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                    "--remote-debugging-port=0", "--user-data-dir=\(profile)", "about:blank"]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, profile + "/chromium.log", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var cargs: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { for a in cargs { free(a) } }
        // Chromium makes a folder of its own in TMPDIR (`org.chromium.Chromium.*`) and
        // leaves it when it is stopped: inside the profile, it goes with the profile.
        mkdir(profile + "/tmp", 0o700)
        var cenv = Self.environment(tmpdir: profile + "/tmp").map { strdup($0) } + [nil]
        defer { for e in cenv { free(e) } }
        var child: pid_t = 0
        let rc = posix_spawnp(&child, binary, &actions, nil, &cargs, &cenv)
        guard rc == 0 else {
            throw CaptureError(.cdp, "--launch: cannot start \(binary): \(String(cString: strerror(rc)))")
        }
        pid = child
        // DevToolsActivePort: first line the port, second the browser's WebSocket path.
        var port: Int?
        for _ in 0..<200 {
            if let text = Self.read(profile + "/DevToolsActivePort"), let first = text.split(separator: "\n").first,
               let p = Int(first), p > 0 {
                port = p
                break
            }
            var status: Int32 = 0
            if waitpid(child, &status, WNOHANG) == child {
                stopped = true
                let log = Self.read(profile + "/chromium.log") ?? ""
                throw CaptureError(.cdp, "--launch: \(binary) exited before it opened its DevTools port: "
                    + String(log.suffix(400)))
            }
            usleep(50_000)
        }
        guard let port else {
            kill(child, SIGKILL)
            throw CaptureError(.cdp, "--launch: \(binary) did not write \(profile)/DevToolsActivePort within 10 s")
        }
        endpoint = CDPEndpoint(host: "127.0.0.1", port: port)
    }

    deinit { stop() }

    /// Stops the browser (SIGTERM, then SIGKILL after 3 s) and removes its profile.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGTERM)
        var status: Int32 = 0
        var ended = false
        for _ in 0..<60 {
            if waitpid(pid, &status, WNOHANG) == pid { ended = true; break }
            usleep(50_000)
        }
        if !ended {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        Self.removeTree(profile)
    }

    /// This process's environment with `TMPDIR` set to `tmpdir`.
    static func environment(tmpdir: String) -> [String] {
        var entries: [String] = []
        var p = environ
        while let entry = p.pointee {
            let text = String(cString: entry)
            if !text.hasPrefix("TMPDIR=") { entries.append(text) }
            p += 1
        }
        return entries + ["TMPDIR=" + tmpdir]
    }

    static func find() -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for name in candidates {
            for dir in path.split(separator: ":") where access("\(dir)/\(name)", X_OK) == 0 {
                return "\(dir)/\(name)"
            }
        }
        return nil
    }

    static func read(_ path: String) -> String? {
        guard let f = fopen(path, "r") else { return nil }
        defer { fclose(f) }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buf, 1, buf.count, f)
            if n <= 0 { break }
            out += buf[..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `rm -rf` of a folder this launcher made.
    static func removeTree(_ path: String) {
        guard path.hasPrefix("/tmp/bridgescope-cdp.") else { return }
        let words: [String] = ["/bin/rm", "-rf", path]
        var cargs: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { for a in cargs { free(a) } }
        var child: pid_t = 0
        // Chromium's helper processes may still write to the profile for a moment: retry.
        for attempt in 0..<3 {
            if attempt > 0 { usleep(300_000) }
            if posix_spawn(&child, "/bin/rm", nil, nil, &cargs, environ) == 0 {
                var status: Int32 = 0
                waitpid(child, &status, 0)
            }
            if access(path, F_OK) != 0 { return }
        }
    }
}
