#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Glibc)
private let systemWrite = Glibc.write
private let systemPoll = Glibc.poll
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
private let systemPoll = Darwin.poll
#endif

/// Why a child process could not be started.
package struct ChildProcessError: Error, CustomStringConvertible {
    /// What failed, with the system's reason.
    package var description: String
}

/// The package's one child-process primitive: a process started with `posix_spawn`, its
/// standard input and output on pipes (output non-blocking on our side unless asked),
/// standard error on a pipe (its tail kept) or in a file. Used for fuzz workers, crash
/// replays, the fuzzer's `stdio:` targets and replay's `stdio:` hosts (the stdio
/// transport). One owner at a time: not for concurrent use.
package final class ChildProcess: @unchecked Sendable {
    /// How a child ended.
    package enum Termination: Sendable, Hashable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        package var description: String {
            switch self {
            case .exited(let c): return "exited with status \(c)"
            case .signaled(let s): return "killed by signal \(s) (\(ChildProcess.signalName(s)))"
            }
        }
    }

    /// The child's process id.
    package let pid: pid_t
    /// Whether the child leads its own process group.
    package let ownGroup: Bool
    /// Our end of its standard input (-1 once closed).
    package private(set) var stdinFD: Int32
    /// Our end of its standard output.
    package let stdoutFD: Int32
    /// Our end of its standard error (-1 when it goes to a file).
    package let stderrFD: Int32
    package private(set) var termination: Termination?
    package var stdoutBuffer: [UInt8] = []
    package var stderrTail: [UInt8] = []

    /// Starts `executable` with `arguments`; `environment` entries are added to ours.
    /// With `stderrFile`, the child's standard error goes to that (open, writable)
    /// descriptor instead of a pipe; with `blockingOutput`, reads of ``stdoutFD`` block.
    /// With `processGroup`, the child leads a process group of its own and ``signal(_:)``
    /// reaches the whole group: a `/bin/sh -c` command's own children (a shell that forks,
    /// a wrapper script such as a pyenv shim) cannot outlive a SIGKILL.
    package init(executable: String, arguments: [String], environment: [String: String] = [:],
                 stderrFile: Int32? = nil, blockingOutput: Bool = false, processGroup: Bool = false) throws(ChildProcessError) {
        var inPipe: [Int32] = [0, 0], outPipe: [Int32] = [0, 0], errPipe: [Int32] = [-1, -1]
        guard pipe(&inPipe) == 0, pipe(&outPipe) == 0, stderrFile != nil || pipe(&errPipe) == 0 else {
            throw ChildProcessError(description: "cannot create pipes: \(String(cString: strerror(errno)))")
        }
        // Only the child's copies (made by dup2) survive exec: no other child inherits these.
        for fd in inPipe + outPipe + errPipe where fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, stderrFile ?? errPipe[1], 2)
        var env = ChildProcess.currentEnvironment()
        for (k, v) in environment { env[k] = v }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var child: pid_t = 0
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if processGroup {
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        let rc = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        close(inPipe[0]); close(outPipe[1])
        if errPipe[1] >= 0 { close(errPipe[1]) }
        guard rc == 0 else {
            close(inPipe[1]); close(outPipe[0])
            if errPipe[0] >= 0 { close(errPipe[0]) }
            throw ChildProcessError(description: "cannot start \(executable): \(String(cString: strerror(rc)))")
        }
        pid = child
        ownGroup = processGroup
        stdinFD = inPipe[1]
        stdoutFD = outPipe[0]
        stderrFD = errPipe[0]
        if !blockingOutput { _ = fcntl(stdoutFD, F_SETFL, fcntl(stdoutFD, F_GETFL) | O_NONBLOCK) }
        if stderrFD >= 0 { _ = fcntl(stderrFD, F_SETFL, fcntl(stderrFD, F_GETFL) | O_NONBLOCK) }
    }

    deinit {
        if ownGroup { kill(-pid, SIGKILL) }
        if termination == nil { kill(pid, SIGKILL); _ = wait() }
        if stdinFD >= 0 { close(stdinFD) }
        close(stdoutFD)
        if stderrFD >= 0 { close(stderrFD) }
    }

    package static func currentEnvironment() -> [String: String] {
        var out: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") { out[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
            p += 1
        }
        return out
    }

    /// Writes all of `bytes` to the child's standard input; false when the child is gone.
    @discardableResult
    package func write(_ bytes: [UInt8]) -> Bool {
        guard stdinFD >= 0 else { return false }
        // Once a bounded write made standard input non-blocking, EAGAIN is not the end.
        if stdinNonBlocking { return write(bytes, timeoutMs: .max) }
        return bytes.withUnsafeBytes { buf in
            var off = 0
            while off < buf.count {
                let n = systemWrite(stdinFD, buf.baseAddress! + off, buf.count - off)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                off += n
            }
            return true
        }
    }

    /// Writes `bytes` to the child's standard input without ever waiting longer than
    /// `timeoutMs` for the child to take more of them: a child that stops reading (hung,
    /// or flooding its own output, which is drained meanwhile) cannot stall the caller,
    /// and one that reads a long line slowly but steadily is not cut off. Returns false
    /// when the child is gone or made no progress for `timeoutMs`.
    package func write(_ bytes: [UInt8], timeoutMs: Int) -> Bool {
        guard stdinFD >= 0 else { return false }
        if !stdinNonBlocking {
            _ = fcntl(stdinFD, F_SETFL, fcntl(stdinFD, F_GETFL) | O_NONBLOCK)
            stdinNonBlocking = true
        }
        var lastProgress = ContinuousClock.now
        return bytes.withUnsafeBytes { buf in
            var off = 0
            while off < buf.count {
                let n = systemWrite(stdinFD, buf.baseAddress! + off, buf.count - off)
                if n > 0 { off += n; lastProgress = .now; continue }
                if n < 0 && errno == EINTR { continue }
                guard n < 0 && errno == EAGAIN, ContinuousClock.now - lastProgress < .milliseconds(timeoutMs) else { return false }
                var fds = [pollfd(fd: stdinFD, events: Int16(POLLOUT), revents: 0), pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)]
                _ = systemPoll(&fds, 2, 20)
                _ = drain(stdoutFD, into: &stdoutBuffer, keep: Int.max)
            }
            return true
        }
    }
    private var stdinNonBlocking = false

    /// Closes the child's standard input.
    package func closeStdin() {
        if stdinFD >= 0 { close(stdinFD); stdinFD = -1 }
    }

    /// Waits up to `timeoutMs` for output; reads what is there into the buffers. Returns
    /// false when both pipes are at end of file.
    @discardableResult
    package func pump(timeoutMs: Int32) -> Bool {
        // A pipe at end of file is left out (poll would report it at once, every time).
        var fds = [pollfd(fd: stdoutOpen ? stdoutFD : -1, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: stderrOpen ? stderrFD : -1, events: Int16(POLLIN), revents: 0)]
        let ready = systemPoll(&fds, 2, timeoutMs)
        // Read only what poll says is readable (data, end of file or an error): reading
        // the quiet pipes too cost two failed reads per call, most of a fuzz run's reads.
        if ready == 0 { return stdoutOpen || (stderrOpen && stderrFD >= 0) }
        if stdoutOpen && fds[0].revents != 0 { stdoutOpen = drain(stdoutFD, into: &stdoutBuffer, keep: Int.max) }
        if stderrOpen && stderrFD >= 0 && fds[1].revents != 0 { stderrOpen = drain(stderrFD, into: &stderrTail, keep: 64 << 10) }
        return stdoutOpen || (stderrOpen && stderrFD >= 0)
    }

    private var stdoutOpen = true
    private var stderrOpen = true

    private func drain(_ fd: Int32, into buffer: inout [UInt8], keep: Int) -> Bool {
        // Uninitialized scratch space: a zeroed 64 KiB array per call was a fifth of a
        // black-box fuzz run's CPU time (pump runs after every step).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 65536) { chunk in
            while true {
                let n = read(fd, chunk.baseAddress, chunk.count)
                if n > 0 {
                    buffer.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[0..<n]))
                    if buffer.count > keep { buffer.removeFirst(buffer.count - keep) }
                    continue
                }
                if n == 0 { return false }
                return errno == EAGAIN || errno == EINTR
            }
        }
    }

    /// Complete lines received on standard output so far (removed from the buffer).
    package func takeLines() -> [[UInt8]] {
        var lines: [[UInt8]] = []
        while let nl = stdoutBuffer.firstIndex(of: 0x0A) {
            lines.append(Array(stdoutBuffer[..<nl]))
            stdoutBuffer.removeSubrange(...nl)
        }
        return lines
    }

    /// The child's status when it has ended (does not block).
    package func status() -> Termination? {
        if let termination { return termination }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        guard r == pid else { return nil }
        termination = Self.decode(status)
        return termination
    }

    /// Waits for the child to end.
    package func wait() -> Termination {
        if let termination { return termination }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        termination = Self.decode(status)
        return termination!
    }

    /// Sends a signal.
    package func signal(_ sig: Int32) {
        if ownGroup {
            // The group may outlive its leader (the shell's children): signal it even then.
            kill(-pid, sig)
        } else if termination == nil {
            kill(pid, sig)
        }
    }

    package static func decode(_ status: Int32) -> Termination {
        let sig = status & 0x7F
        if sig == 0 { return .exited((status >> 8) & 0xFF) }
        return .signaled(sig)
    }

    package static func signalName(_ s: Int32) -> String {
        switch s {
        case SIGILL: return "SIGILL, a Swift trap"
        case SIGTRAP: return "SIGTRAP, a Swift trap"
        case SIGSEGV: return "SIGSEGV"
        case SIGBUS: return "SIGBUS"
        case SIGABRT: return "SIGABRT"
        case SIGKILL: return "SIGKILL"
        case SIGFPE: return "SIGFPE"
        default: return "signal \(s)"
        }
    }

    /// The most telling line of what the child wrote to standard error before it died
    /// (`Fatal error: …`), for crash signatures.
    package var crashLine: String? {
        let text = String(decoding: stderrTail, as: UTF8.self)
        let lines = text.split(separator: "\n").map(String.init)
        return lines.first { $0.contains("Fatal error") || $0.contains("fatal error") || $0.contains("Precondition failed")
            || $0.contains("runtime failure") || $0.contains("ERROR: AddressSanitizer") }
            ?? lines.last
    }
}
