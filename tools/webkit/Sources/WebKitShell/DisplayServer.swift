import Foundation

/// The display the shell's offscreen window needs. WebKitGTK draws through GTK, and GTK
/// opens a display even for a window nobody sees.
///
/// ``ensure()`` uses the display the shell was given (`DISPLAY` or `WAYLAND_DISPLAY`, or
/// `GDK_BACKEND=broadway`); otherwise it starts `Xvfb` (it picks a free display number
/// itself and says which, `-displayfd`), or `broadwayd` when Xvfb is not installed, and
/// ``stop()`` ends it and waits for it. The server is started through `setpriv
/// --pdeathsig TERM`, so it also ends when the shell is killed.
package final class DisplayServer {
    /// What was started, if anything.
    package private(set) var started: ChildProcess?
    /// A sentence for the log: which display is used.
    package private(set) var summary = ""

    package init() {}

    /// Makes a display available to GTK in this process's environment.
    package func ensure() throws(ShellError) {
        let env = ProcessInfo.processInfo.environment
        if let d = env["DISPLAY"], !d.isEmpty { summary = "display \(d) (given)"; return }
        if let w = env["WAYLAND_DISPLAY"], !w.isEmpty { summary = "Wayland display \(w) (given)"; return }
        if env["GDK_BACKEND"] == "broadway" { summary = "broadway display (given)"; return }
        if let xvfb = Self.find("Xvfb") {
            try startXvfb(xvfb)
        } else if let broadwayd = Self.find("broadwayd") {
            try startBroadway(broadwayd)
        } else {
            throw ShellError("no display: DISPLAY is not set and neither Xvfb nor broadwayd is installed "
                             + "(apt-get install xvfb, or run tools/setup.sh --with-webkit)")
        }
    }

    private func startXvfb(_ path: String) throws(ShellError) {
        var out: [Int32] = [0, 0]
        guard makePipe(&out) else { throw ShellError("cannot make a pipe for Xvfb") }
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(out[0]); if null >= 0 { close(null) } }
        let p: ChildProcess
        do {
            p = try Self.spawn(path, ["-displayfd", "1", "-nolisten", "tcp", "-screen", "0", "1280x1024x24"],
                               stdout: out[1], stderr: null)
        } catch { close(out[1]); throw ShellError("cannot start Xvfb: \(error)") }
        close(out[1])
        started = p
        // Xvfb writes the display number it chose, then a newline, once it accepts clients.
        var text = ""
        let fd = out[0]
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let deadline = Date().addingTimeInterval(10)
        while !text.contains("\n"), Date() < deadline {
            guard poll(&pfd, 1, 200) > 0 else { if !p.isRunning { break }; continue }
            var buffer = [UInt8](repeating: 0, count: 64)
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            text += String(decoding: buffer[..<n], as: UTF8.self)
        }
        guard let number = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            stop()
            throw ShellError("Xvfb did not report a display within 10 s (\(path))")
        }
        setenv("DISPLAY", ":\(number)", 1)
        summary = "Xvfb on :\(number) (started)"
    }

    private func startBroadway(_ path: String) throws(ShellError) {
        // broadwayd has no -displayfd: take the first display whose socket is free.
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { if null >= 0 { close(null) } }
        for number in 40..<80 {
            let p = try Self.spawn(path, [":\(number)"], stdout: null, stderr: null)
            usleep(300_000)
            if p.isRunning {
                started = p
                setenv("GDK_BACKEND", "broadway", 1)
                setenv("BROADWAY_DISPLAY", ":\(number)", 1)
                summary = "broadwayd on :\(number) (started)"
                return
            }
        }
        throw ShellError("broadwayd found no free display between :40 and :79")
    }

    /// Ends the display server the shell started, and waits for it.
    package func stop() {
        guard let p = started else { return }
        started = nil
        p.stop(grace: 2)
    }

    /// Starts `path` under `setpriv --pdeathsig TERM` when there is one (it is part of
    /// util-linux): called on the main thread, whose end is the process's end.
    static func spawn(_ path: String, _ arguments: [String], stdout: Int32, stderr: Int32) throws(ShellError) -> ChildProcess {
        if let setpriv = find("setpriv") {
            return try ChildProcess(path: setpriv, arguments: ["--pdeathsig", "TERM", "--", path] + arguments,
                                    stdout: stdout, stderr: stderr)
        }
        return try ChildProcess(path: path, arguments: arguments, stdout: stdout, stderr: stderr)
    }

    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") + ["/usr/bin", "/usr/sbin"] {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
