import BridgeArchive

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file (or a byte array) line by line in fixed-size chunks, so memory is one
/// chunk plus the longest line. Lines end at LF; a CR before it is dropped. A line
/// longer than ``maxLineBytes`` is skipped and reported, never buffered whole.
final class LineReader {
    /// Chunk size read from the file: 1 MiB.
    static let chunkBytes = 1 << 20
    /// Longest line kept: 128 MiB (a 16 MiB message written as an escaped JSON string
    /// can grow up to 6 times, plus the tap fields).
    let maxLineBytes: Int

    /// One line, or a line that was too long.
    enum Line {
        case line(ArraySlice<UInt8>, number: Int)
        case tooLong(number: Int, bytes: Int)
    }

    private var source: (any ArchiveByteSource)?
    private var pending: [UInt8]?
    private var buffer: [UInt8] = []
    private var start = 0
    private var eof = false
    private var number = 0
    private var skipping = 0

    /// Opens `path` for reading; nil when it cannot be opened.
    convenience init?(path: String, maxLineBytes: Int = 128 << 20) {
        guard let f = try? FileByteSource(path: path) else { return nil }
        self.init(source: f, maxLineBytes: maxLineBytes)
    }

    /// Reads lines from a byte source (a file, or a ``PeekedInput`` already judged).
    init(source: any ArchiveByteSource, maxLineBytes: Int = 128 << 20) {
        self.source = source
        self.maxLineBytes = maxLineBytes
    }

    /// Reads lines from bytes in memory.
    init(bytes: [UInt8], maxLineBytes: Int = 128 << 20) {
        self.pending = bytes
        self.maxLineBytes = maxLineBytes
    }

    /// Whether a read error happened (the file ended early for a reason other than EOF).
    private(set) var readError = false

    private func fill() -> Bool {
        if let p = pending {
            pending = nil
            buffer.removeFirst(start)
            start = 0
            buffer.append(contentsOf: p)
            return !p.isEmpty
        }
        guard source != nil, !eof else { return false }
        var chunk = [UInt8](repeating: 0, count: Self.chunkBytes)
        var n = 0
        // Fill the chunk (a pipe gives less per read); a read error ends the input.
        while n < Self.chunkBytes {
            var failed = false
            let got = chunk.withUnsafeMutableBytes { buf -> Int in
                do throws(ArchiveError) {
                    return try source!.read(into: UnsafeMutableRawBufferPointer(rebasing: buf[n...]))
                } catch {
                    failed = true
                    return 0
                }
            }
            if failed { readError = true }
            if got == 0 {
                eof = true
                break
            }
            n += got
        }
        if n == 0 { return false }
        buffer.removeFirst(start)
        start = 0
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// The next line, or nil at the end.
    func next() -> Line? {
        while true {
            if let nl = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                number += 1
                var end = nl
                if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = buffer[start..<end]
                start = nl + 1
                if skipping > 0 {
                    let total = skipping + line.count
                    skipping = 0
                    return .tooLong(number: number, bytes: total)
                }
                return .line(line, number: number)
            }
            if buffer.count - start > maxLineBytes {
                skipping += buffer.count - start
                buffer.removeAll(keepingCapacity: true)
                start = 0
            }
            if !fill() {
                guard buffer.count > start || skipping > 0 else { return nil }
                number += 1
                let line = buffer[start...]
                start = buffer.count
                if skipping > 0 {
                    let total = skipping + line.count
                    skipping = 0
                    return .tooLong(number: number, bytes: total)
                }
                return .line(line, number: number)
            }
        }
    }
}
