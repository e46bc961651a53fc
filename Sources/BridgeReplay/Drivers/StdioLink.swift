import BridgeHost
import BridgeTransport
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A host started as a child process (`/bin/sh -c COMMAND`) that reads one envelope per
/// line on standard input and writes one per line on standard output
/// (`bridgescope host --stdio`), through the package's one child-process primitive
/// (`BridgeTransport.ChildProcess`). Its standard error goes to a temporary file, shown in
/// the error when it exits without answering.
final class StdioLink: ReplayLink, Sendable {
    /// Lines the host wrote.
    public let messages: AsyncStream<[UInt8]>
    private let process: Mutex<ChildProcess>
    private let stderrPath: String
    private let inputClosed = Mutex(false)

    private init(process: ChildProcess, stderrPath: String) {
        self.stderrPath = stderrPath
        // The descriptor stays the process's; a thread of its own reads it to its end.
        messages = LineSplitter.lines(from: process.stdoutFD, maxLineBytes: ReplayLimits.json.maxInputBytes,
                                      threadName: "bridgescope-replay-stdio")
        self.process = Mutex(process)
    }

    /// Writes `message` and a newline to the host's standard input.
    public func send(_ message: [UInt8]) async throws {
        guard !inputClosed.withLock({ $0 }) else { throw ReplayError(.connection, "the host's input is closed") }
        var line = message
        line.append(0x0A)
        let written = process.withLock { $0.write(line) }
        guard written else { throw ReplayError(.connection, "writing to the host failed: \(String(cString: strerror(errno)))") }
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
        var template = Array("/tmp/bridgescope-replay-stderr.XXXXXX".utf8CString)
        let errFD = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        let stderrPath = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if errFD >= 0 { _ = fcntl(errFD, F_SETFD, FD_CLOEXEC) }
        let process: ChildProcess
        do throws(ChildProcessError) {
            process = try ChildProcess(executable: "/bin/sh", arguments: ["-c", command],
                                       stderrFile: errFD >= 0 ? errFD : nil, blockingOutput: true)
        } catch {
            if errFD >= 0 { close(errFD) }
            unlink(stderrPath)
            throw ReplayError(.connection, "cannot start /bin/sh -c \(command): \(error.description)")
        }
        if errFD >= 0 { close(errFD) }
        logger.debug("stdio host started", metadata: ["pid": "\(process.pid)", "command": "\(command)"])
        let link = StdioLink(process: process, stderrPath: stderrPath)
        let result = await body(link)
        link.closeInput()
        let status = await link.waitForExit(grace: grace)
        let stderr = link.stderrTail()
        unlink(stderrPath)
        return (result, status, stderr)
    }

    /// Closes the host's standard input (end of the web side).
    func closeInput() {
        let first = inputClosed.withLock { closed -> Bool in
            defer { closed = true }
            return !closed
        }
        if first { process.withLock { $0.closeStdin() } }
    }

    /// Waits for the child to exit; escalates to SIGTERM, then SIGKILL. Returns the exit
    /// status (128 + signal when killed by one).
    func waitForExit(grace: Double) async -> Int32 {
        let steps = [(grace, SIGTERM), (1.0, SIGKILL), (5.0, 0)]
        for (wait, sig) in steps {
            let deadline = ContinuousClock.now + .milliseconds(Int64(wait * 1000))
            while ContinuousClock.now < deadline {
                if let t = process.withLock({ $0.status() }) { return Self.exitStatus(t) }
                try? await Task.sleep(nanoseconds: 10_000_000)
            }
            if sig != 0 { process.withLock { $0.signal(sig) } }
        }
        return -1
    }

    static func exitStatus(_ t: ChildProcess.Termination) -> Int32 {
        switch t {
        case .exited(let code): code
        case .signaled(let signal): 128 + signal
        }
    }

    /// The last 2 KB the host wrote to standard error.
    func stderrTail() -> String {
        guard let data = FileManager.default.contents(atPath: stderrPath) else { return "" }
        return String(decoding: data.suffix(2048), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
