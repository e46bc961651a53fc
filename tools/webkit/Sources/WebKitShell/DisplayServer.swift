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
    package private(set) var started: Process?
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
        let out = Pipe()
        let p = Self.process(path, ["-displayfd", "1", "-nolisten", "tcp", "-screen", "0", "1280x1024x24"])
        p.standardOutput = out
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        do { try p.run() } catch { throw ShellError("cannot start Xvfb: \(error)") }
        started = p
        // Xvfb writes the display number it chose, then a newline, once it accepts clients.
        var text = ""
        let fd = out.fileHandleForReading.fileDescriptor
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
        for number in 40..<80 {
            let p = Self.process(path, [":\(number)"])
            p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            p.standardError = FileHandle(forWritingAtPath: "/dev/null")
            do { try p.run() } catch { throw ShellError("cannot start broadwayd: \(error)") }
            usleep(300_000)
            if p.isRunning {
                started = p
                setenv("GDK_BACKEND", "broadway", 1)
                setenv("BROADWAY_DISPLAY", ":\(number)", 1)
                summary = "broadwayd on :\(number) (started)"
                return
            }
            p.waitUntilExit()
        }
        throw ShellError("broadwayd found no free display between :40 and :79")
    }

    /// Ends the display server the shell started, and waits for it.
    package func stop() {
        guard let p = started else { return }
        started = nil
        if p.isRunning { p.terminate() }
        let deadline = Date().addingTimeInterval(2)
        while p.isRunning, Date() < deadline { usleep(10_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
    }

    static func process(_ path: String, _ arguments: [String]) -> Process {
        let p = Process()
        if let setpriv = find("setpriv") {
            p.executableURL = URL(fileURLWithPath: setpriv)
            p.arguments = ["--pdeathsig", "TERM", "--", path] + arguments
        } else {
            p.executableURL = URL(fileURLWithPath: path)
            p.arguments = arguments
        }
        return p
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
