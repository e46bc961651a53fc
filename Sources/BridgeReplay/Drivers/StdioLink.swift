import BridgeHost
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A host started as a child process (`/bin/sh -c COMMAND`) that reads one envelope per
/// line on standard input and writes one per line on standard output
/// (`bridgescope host --stdio`). Its standard error goes to a temporary file, shown in
/// the error when it exits without answering.
public final class StdioLink: ReplayLink, @unchecked Sendable {
    /// Lines the host wrote.
    public let messages: AsyncStream<[UInt8]>
    private let pid: pid_t
    private let input: Int32
    private let stderrPath: String
    private let lock = NSLock()
    private var inputClosed = false
    private var received = 0

    private init(pid: pid_t, input: Int32, output: Int32, stderrPath: String) {
        self.pid = pid
        self.input = input
        self.stderrPath = stderrPath
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        messages = stream
        // A blocking read must not hold one of the few cooperative threads: a thread of
        // its own reads the pipe and closes it at end of file.
        let thread = Thread {
            var splitter = LineSplitter(maxLineBytes: ReplayLimits.json.maxInputBytes)
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                for line in chunk.withUnsafeBytes({ splitter.feed(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }) {
                    continuation.yield(line)
                }
            }
            if let last = splitter.finish() { continuation.yield(last) }
            close(output)
            continuation.finish()
        }
        thread.name = "bridgescope-replay-stdio"
        thread.start()
    }

    /// Writes `message` and a newline to the host's standard input.
    public func send(_ message: [UInt8]) async throws {
        guard !lock.withLock({ inputClosed }) else { throw ReplayError(.connection, "the host's input is closed") }
        var line = message
        line.append(0x0A)
        try line.withUnsafeBytes { buf in
            var off = 0
            while off < buf.count {
                let n = write(input, buf.baseAddress! + off, buf.count - off)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw ReplayError(.connection, "writing to the host failed: \(String(cString: strerror(errno)))") }
                off += n
            }
        }
    }

    /// Starts `command`, runs `body` with the link, then closes the host's input and
    /// waits up to `grace` seconds for it to exit (then SIGTERM, then SIGKILL). Returns
    /// the body's result and the host's exit status.
    ///
    /// - Throws: ``ReplayError`` (`connection`) when the command cannot be started.
    public static func with<T: Sendable>(command: String, grace: Double, logger: Logger,
                                         _ body: (StdioLink) async -> T) async throws(ReplayError) -> (T, status: Int32, stderr: String) {
        // Writing to a host that died must be an error, not a signal that ends replay.
        signal(SIGPIPE, SIG_IGN)
        var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else {
            throw ReplayError(.connection, "cannot create pipes: \(String(cString: strerror(errno)))")
        }
        // Only the child's copies (made by dup2) survive exec: no other child inherits these.
        for fd in toChild + fromChild { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var template = Array("/tmp/bridgescope-replay-stderr.XXXXXX".utf8CString)
        let errFD = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        let stderrPath = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        if errFD >= 0 {
            _ = fcntl(errFD, F_SETFD, FD_CLOEXEC)
            posix_spawn_file_actions_adddup2(&actions, errFD, 2)
        }
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(command), nil]
        defer { for a in argv { free(a) } }
        let rc = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ)
        close(toChild[0])
        close(fromChild[1])
        if errFD >= 0 { close(errFD) }
        guard rc == 0 else {
            close(toChild[1])
            close(fromChild[0])
            unlink(stderrPath)
            throw ReplayError(.connection, "cannot start /bin/sh -c \(command): \(String(cString: strerror(rc)))")
        }
        logger.debug("stdio host started", metadata: ["pid": "\(pid)", "command": "\(command)"])
        let link = StdioLink(pid: pid, input: toChild[1], output: fromChild[0], stderrPath: stderrPath)
        let result = await body(link)
        link.closeInput()
        let status = await link.waitForExit(grace: grace)
        let stderr = link.stderrTail()
        unlink(stderrPath)
        return (result, status, stderr)
    }

    /// Closes the host's standard input (end of the web side).
    func closeInput() {
        let first = lock.withLock { () -> Bool in
            defer { inputClosed = true }
            return !inputClosed
        }
        if first { close(input) }
    }

    /// Waits for the child to exit; escalates to SIGTERM, then SIGKILL. Returns the exit
    /// status (128 + signal when killed by one).
    func waitForExit(grace: Double) async -> Int32 {
        let steps = [(grace, SIGTERM), (1.0, SIGKILL), (5.0, 0)]
        for (wait, sig) in steps {
            let deadline = Date().addingTimeInterval(wait)
            while Date() < deadline {
                var status: Int32 = 0
                let r = waitpid(pid, &status, WNOHANG)
                if r == pid { return Self.exitStatus(status) }
                if r < 0 && errno != EINTR { return -1 }
                try? await Task.sleep(nanoseconds: 10_000_000)
            }
            if sig != 0 { kill(pid, sig) }
        }
        return -1
    }

    static func exitStatus(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// The last 2 KB the host wrote to standard error.
    func stderrTail() -> String {
        guard let data = FileManager.default.contents(atPath: stderrPath) else { return "" }
        return String(decoding: data.suffix(2048), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
