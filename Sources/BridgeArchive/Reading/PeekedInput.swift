#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An input opened once and judged by its first bytes: a file, a FIFO, or standard input
/// (`-`). The bytes read to judge it (``InputKind/sniffBytes`` at most) are served again
/// first, so a pipe is read exactly once and a FIFO is never opened twice.
public final class PeekedInput: ArchiveByteSource {
    /// The path as given (`-` reads standard input, named `<stdin>`).
    public let name: String
    /// What the first bytes say the input is.
    public private(set) var kind: InputKind = .unknown
    /// The first bytes.
    public private(set) var prefix: [UInt8] = []
    private let fd: Int32
    private let ownsFD: Bool
    private var served = 0

    /// Opens `path` (`-`: standard input) and reads up to ``InputKind/sniffBytes`` of it
    /// (less when the input ends first; from a pipe, until the first line is complete).
    public init(path: String) throws(ArchiveError) {
        if path == "-" {
            fd = 0
            ownsFD = false
            name = "<stdin>"
        } else {
            let f = open(path, O_RDONLY | O_CLOEXEC)
            guard f >= 0 else { throw ArchiveError.system("open for reading", path: path) }
            var st = stat()
            if fstat(f, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
                _ = close(f)
                throw ArchiveError(.io, path: path, "\(path) is a directory, not a file")
            }
            fd = f
            ownsFD = true
            name = path
        }
        var buffer = [UInt8](repeating: 0, count: InputKind.sniffBytes)
        var have = 0
        while have < buffer.count {
            let n = buffer.withUnsafeMutableBytes { Self.systemRead(fd, $0.baseAddress! + have, $0.count - have) }
            if n < 0 {
                if errno == EINTR { continue }
                // Every stored property is set: the throw runs deinit, which closes `fd`.
                throw ArchiveError.system("read", path: name)
            }
            if n == 0 { break }
            have += n
            // From a pipe, a complete first line (or a binary magic) is enough to judge.
            if have >= 4 && buffer[0..<have].contains(0x0A) { break }
        }
        prefix = Array(buffer[0..<have])
        kind = InputKind.sniff(prefix)
    }

    static func systemRead(_ fd: Int32, _ p: UnsafeMutableRawPointer?, _ n: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(fd, p, n)
        #else
        Darwin.read(fd, p, n)
        #endif
    }

    deinit {
        if ownsFD { _ = close(fd) }
    }

    /// The first bytes again, then the rest of the input.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        if served < prefix.count {
            let n = min(buffer.count, prefix.count - served)
            prefix.withUnsafeBytes { src in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[served..<served + n]))
            }
            served += n
            return n
        }
        while true {
            let n = Self.systemRead(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw ArchiveError.system("read", path: name)
        }
    }
}

extension PeekedInput {
    /// Opens `path` (`-`: standard input) as a session archive; throws `not-an-archive`
    /// saying what it is instead and which command reads that.
    public static func archive(_ path: String) throws(ArchiveError) -> PeekedInput {
        let input = try PeekedInput(path: path)
        guard input.kind == .archive else {
            throw ArchiveError(.notAnArchive, path: path,
                               "it is \(input.kind), not a session archive: \(input.kind.advice(path: path))")
        }
        return input
    }
}
