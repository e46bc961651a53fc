#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a reader gets compressed bytes: a file or memory.
public protocol ArchiveByteSource {
    /// A name for errors and findings (a path, or `<memory>`).
    var name: String { get }
    /// Reads up to `buffer.count` bytes; returns 0 at the end.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int
}

/// A file opened read-only, closed when the source is released.
public final class FileByteSource: ArchiveByteSource {
    /// The path.
    public let name: String
    private let fd: Int32

    /// Opens `path` read-only, positioned at `offset` (a frame start from
    /// ``ArchiveFrameIndex``, to read from the middle of an archive; offsets in
    /// findings are then counted from there).
    public init(path: String, offset: Int = 0) throws(ArchiveError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ArchiveError.system("open for reading", path: path) }
        if offset > 0 && lseek(fd, off_t(offset), SEEK_SET) < 0 {
            let e = ArchiveError.system("seek to byte \(offset)", path: path)
            _ = close(fd)
            throw e
        }
        self.fd = fd
        self.name = path
    }

    deinit {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }

    /// Reads with `read(2)`, retrying `EINTR`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        while true {
            #if canImport(Glibc)
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            #else
            let n = Darwin.read(fd, buffer.baseAddress, buffer.count)
            #endif
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw ArchiveError.system("read", path: name)
        }
    }
}

/// Bytes in memory (tests, fuzzing).
public struct MemoryByteSource: ArchiveByteSource {
    /// `<memory>` unless told otherwise.
    public let name: String
    private let bytes: [UInt8]
    private var offset = 0

    /// Wraps `bytes`.
    public init(_ bytes: [UInt8], name: String = "<memory>") {
        self.bytes = bytes
        self.name = name
    }

    /// Copies the next bytes.
    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        let n = min(buffer.count, bytes.count - offset)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { src in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[offset..<offset + n]))
        }
        offset += n
        return n
    }
}
