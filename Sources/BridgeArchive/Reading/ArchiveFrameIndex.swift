#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One zstd frame of an archive file.
public struct ArchiveFrame: Sendable, Hashable {
    /// Byte offset of the frame's magic number in the file.
    public var offset: Int
    /// Compressed length of the frame, headers and checksum included.
    public var length: Int
    /// Whether it is a skippable frame (no content).
    public var isSkippable: Bool
}

/// Lists the zstd frames of an archive by walking frame and block headers (RFC 8878
/// §3.1), without decompressing: the seek points of docs/FORMAT.md §1.1. Every
/// content frame a writer of this project ends starts at a line start, so
/// ``ArchiveLineReader`` can start at any of them (``FileByteSource/init(path:offset:)``).
public enum ArchiveFrameIndex {
    /// The frames of the file at `path`, and a description of the first problem
    /// (damage or truncation) that stopped the walk, if any.
    public static func scan(path: String) throws(ArchiveError) -> (frames: [ArchiveFrame], problem: String?) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ArchiveError.system("open for reading", path: path) }
        defer { _ = close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ArchiveError.system("stat", path: path) }
        return scan(size: Int(st.st_size)) { offset, buffer in
            pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
        }
    }

    /// The frames of an archive held in memory.
    public static func scan(bytes: [UInt8]) -> (frames: [ArchiveFrame], problem: String?) {
        bytes.withUnsafeBytes { all in
            scan(size: all.count) { offset, buffer in
                let n = min(buffer.count, all.count - offset)
                guard n > 0 else { return 0 }
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: all[offset..<offset + n]))
                return n
            }
        }
    }

    /// Walks headers with a positional read function (`pread`-like).
    static func scan(size: Int, read: (Int, UnsafeMutableRawBufferPointer) -> Int) -> (frames: [ArchiveFrame], problem: String?) {
        var frames: [ArchiveFrame] = []
        var header = [UInt8](repeating: 0, count: 18)
        var at = 0
        func bytes(_ offset: Int, _ count: Int) -> [UInt8]? {
            guard offset + count <= size else { return nil }
            let n = header.withUnsafeMutableBytes { read(offset, UnsafeMutableRawBufferPointer(rebasing: $0[0..<count])) }
            return n == count ? Array(header[0..<count]) : nil
        }
        func le(_ b: [UInt8]) -> Int { b.reversed().reduce(0) { $0 << 8 | Int($1) } }
        while at < size {
            guard let magic = bytes(at, 4).map(le) else { return (frames, "truncated frame header at byte \(at)") }
            if magic & 0xFFFF_FFF0 == 0x184D_2A50 {
                guard let len = bytes(at + 4, 4).map(le), at + 8 + len <= size else {
                    return (frames, "truncated skippable frame at byte \(at)")
                }
                frames.append(ArchiveFrame(offset: at, length: 8 + len, isSkippable: true))
                at += 8 + len
                continue
            }
            guard magic == 0xFD2F_B528 else { return (frames, "no zstd frame magic number at byte \(at)") }
            guard let fhd = bytes(at + 4, 1)?.first else { return (frames, "truncated frame header at byte \(at)") }
            guard fhd & 0x08 == 0 else { return (frames, "reserved bit set in the frame header at byte \(at)") }
            let single = fhd & 0x20 != 0
            let fcsSize = [single ? 1 : 0, 2, 4, 8][Int(fhd >> 6)]
            let didSize = [0, 1, 2, 4][Int(fhd & 3)]
            var p = at + 5 + (single ? 0 : 1) + didSize + fcsSize
            var last = false
            while !last {
                guard let bh = bytes(p, 3).map(le) else { return (frames, "truncated frame at byte \(at) (block header at \(p))") }
                last = bh & 1 != 0
                let type = bh >> 1 & 3
                let blockSize = bh >> 3
                guard type != 3 else { return (frames, "reserved block type in the frame at byte \(at) (block at \(p))") }
                p += 3 + (type == 1 ? 1 : blockSize)
                guard p <= size else { return (frames, "truncated frame at byte \(at)") }
            }
            if fhd & 0x04 != 0 { p += 4 }
            guard p <= size else { return (frames, "truncated frame at byte \(at) (checksum)") }
            frames.append(ArchiveFrame(offset: at, length: p - at, isSkippable: false))
            at = p
        }
        return (frames, nil)
    }
}
