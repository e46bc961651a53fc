import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LineSplitter {
    /// Lines read from `fd` until end of file, by a thread of their own (a blocking read
    /// must not hold one of the few cooperative threads): the one reader of a line-based
    /// stdio stream, for the host's standard input (``StdioTransport``) and replay's stdio
    /// hosts. The descriptor is not closed.
    public static func lines(from fd: Int32, maxLineBytes: Int, threadName: String) -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        let thread = Thread {
            var splitter = LineSplitter(maxLineBytes: maxLineBytes)
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                for line in chunk.withUnsafeBytes({ splitter.feed(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }) {
                    continuation.yield(line)
                }
            }
            if let last = splitter.finish() { continuation.yield(last) }
            continuation.finish()
        }
        thread.name = threadName
        thread.start()
        return stream
    }
}
