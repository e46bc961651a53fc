import BridgeHost
import Foundation

/// Any host that speaks the `host --stdio` contract (docs/HOST.md: one JSON envelope per
/// line on stdin and stdout), run by `/bin/sh -c CMD` as a child of the shell. This is how
/// a host team whose core runs on Linux puts it behind the real bridge.
///
/// The native tap sits at the pipe: what is written to the host (`w2h`) and each line it
/// prints (`h2w`). The child's stderr is the shell's. Bodies are written by a thread of
/// their own, so a host that stops reading never blocks the GTK main loop.
package final class StdioHost: ShellHost, @unchecked Sendable {
    /// The longest line read from the host (PROTOCOL.md §6's message limit).
    package static let maxLineBytes = 16 << 20

    private let command: String
    private var process: ChildProcess?
    private var input: Int32 = -1
    private let writer = DispatchQueue(label: "bridgescope-webkit.stdio-writer")
    private let readerDone = DispatchSemaphore(value: 0)
    private var writable = true

    package let sendsUncheckedLines = true

    package init(command: String) {
        self.command = command
    }

    package func start(send: @escaping @Sendable ([UInt8]) -> Void,
                       observe: (@Sendable (NativeObservation) -> Void)?,
                       ended: @escaping @Sendable (String) -> Void) throws(ShellError) {
        var toHost: [Int32] = [0, 0], fromHost: [Int32] = [0, 0]
        guard makePipe(&toHost), makePipe(&fromHost) else {
            throw ShellError("cannot make pipes for the host: \(String(cString: strerror(errno)))")
        }
        do {
            process = try ChildProcess(path: "/bin/sh", arguments: ["-c", command], stdin: toHost[0], stdout: fromHost[1])
        } catch {
            throw ShellError("cannot start the host \(command): \(error)")
        }
        close(toHost[0])
        close(fromHost[1])
        input = toHost[1]
        let fd = fromHost[0]
        let lines = LineSplitter.lines(from: fd, maxLineBytes: Self.maxLineBytes, threadName: "bridgescope-webkit.stdio-reader")
        let done = readerDone
        Task.detached {
            for await line in lines {
                observe?(NativeObservation(direction: "h2w", bytes: line, time: NativeTapDelegate.now()))
                send(line)
            }
            done.signal()
            ended("the host's output ended (the host `\(self.command)` exited or closed it)")
        }
        self.observeInput = observe
    }

    private var observeInput: (@Sendable (NativeObservation) -> Void)?

    package func receive(_ body: [UInt8]) {
        // One line per message: a raw CR or LF can only be whitespace in valid JSON.
        var line = body.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }
        observeInput?(NativeObservation(direction: "w2h", bytes: line, time: NativeTapDelegate.now()))
        line.append(0x0A)
        let bytes = line
        writer.async { [self] in
            guard writable else { return }
            let ok = bytes.withUnsafeBytes { p -> Bool in
                var offset = 0
                while offset < p.count {
                    let n = write(input, p.baseAddress! + offset, p.count - offset)
                    if n < 0 { if errno == EINTR { continue }; return false }
                    offset += n
                }
                return true
            }
            if !ok { writable = false }
        }
    }

    package func stop(timeoutSeconds: Double) {
        writer.sync {
            if input >= 0 { close(input) }
            input = -1
            writable = false
        }
        guard let process else { return }
        // A host ends when its input ends; then the rest of its command's process group.
        if !process.wait(seconds: timeoutSeconds) { process.stop(grace: 1) }
        kill(-process.pid, SIGTERM)
        _ = readerDone.wait(timeout: .now() + 1)
    }
}
