/// Splits a byte stream into lines (LF or CRLF), fed chunk by chunk (STYLE.md habit 1).
///
/// A line longer than ``maxLineBytes`` is never buffered whole: its first
/// `maxLineBytes + 1` bytes are kept and the rest discarded up to the next newline, so
/// the host's decoder still sees a message over its limit and reports `too-large`.
public struct LineSplitter: Sendable {
    /// Longest line kept whole, in bytes (without the newline). Default 16 MiB, the
    /// message limit of PROTOCOL.md §6.
    public let maxLineBytes: Int
    private var buffer: [UInt8] = []
    private var overlong = false

    /// Creates a splitter.
    public init(maxLineBytes: Int = 16 << 20) {
        self.maxLineBytes = maxLineBytes
    }

    /// Feeds a chunk; returns the lines it completed, without their newline (and a
    /// trailing CR removed). Empty lines are skipped.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var start = 0
        for i in 0..<chunk.count where chunk[i] == 0x0A {
            append(UnsafeRawBufferPointer(rebasing: chunk[start..<i]))
            if let line = takeLine() { lines.append(line) }
            start = i + 1
        }
        append(UnsafeRawBufferPointer(rebasing: chunk[start...]))
        return lines
    }

    /// Feeds a chunk held in an array.
    public mutating func feed(_ chunk: [UInt8]) -> [[UInt8]] {
        chunk.withUnsafeBytes { feed($0) }
    }

    /// The end of the stream: the last line if it had no newline.
    public mutating func finish() -> [UInt8]? {
        takeLine()
    }

    private mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !overlong else { return }
        let room = maxLineBytes + 1 - buffer.count
        if bytes.count > room {
            buffer.append(contentsOf: bytes.prefix(room))
            overlong = true
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    private mutating func takeLine() -> [UInt8]? {
        defer {
            buffer.removeAll(keepingCapacity: buffer.count <= 1 << 16)
            overlong = false
        }
        if !overlong, buffer.last == 0x0D { buffer.removeLast() }
        return buffer.isEmpty ? nil : buffer
    }
}
