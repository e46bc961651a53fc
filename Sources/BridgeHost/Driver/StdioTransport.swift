import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The web side as standard input and output: one envelope per line each way
/// (`bridgescope host --stdio`). Input is read by a dedicated thread (a blocking read
/// must not hold one of the few cooperative threads); output is written with `write(2)`.
/// Lines over 16 MiB are cut (see ``LineSplitter``), so the host reports them too large.
public final class StdioTransport: HostTransport {
    /// Lines read from the input descriptor.
    public let incoming: AsyncStream<[UInt8]>
    private let output: Int32

    /// Starts reading `input` at once (default: standard input) and writes to `output`
    /// (default: standard output). The writer should ignore SIGPIPE if the reader may go away.
    public init(input: Int32 = 0, output: Int32 = 1, maxLineBytes: Int = 16 << 20) {
        self.output = output
        incoming = LineSplitter.lines(from: input, maxLineBytes: maxLineBytes, threadName: "bridgescope-stdin")
    }

    /// Writes `message` and a newline.
    public func send(_ message: [UInt8]) async throws {
        var line = message
        line.append(0x0A)
        try line.withUnsafeBytes { buf in
            var off = 0
            while off < buf.count {
                let n = write(output, buf.baseAddress! + off, buf.count - off)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw HostError(.transport, "writing to descriptor \(output) failed: errno \(errno)") }
                off += n
            }
        }
    }
}
