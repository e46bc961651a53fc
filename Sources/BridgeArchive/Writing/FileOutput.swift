#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file descriptor written with full write loops (partial writes and `EINTR`
/// retried) and errors that name the file and the system's reason.
struct FileOutput {
    /// The descriptor.
    let fd: Int32
    /// The name used in errors.
    let path: String
    /// Whether ``close()`` closes `fd`.
    let owned: Bool
    /// Bytes written so far.
    private(set) var bytesWritten = 0
    /// Whether ``close()`` ran.
    private(set) var closed = false

    /// Opens (creating or truncating) `path` for writing, mode 0644.
    init(creating path: String) throws(ArchiveError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ArchiveError.system("open for writing", path: path) }
        self.fd = fd
        self.path = path
        self.owned = true
    }

    /// Wraps an open descriptor; `owned` says whether ``close()`` closes it.
    init(fileDescriptor fd: Int32, name: String, owned: Bool) {
        self.fd = fd
        self.path = name
        self.owned = owned
    }

    /// Writes every byte of `buffer`.
    mutating func write(_ buffer: UnsafeRawBufferPointer) throws(ArchiveError) {
        guard var p = buffer.baseAddress else { return }
        var left = buffer.count
        while left > 0 {
            #if canImport(Glibc)
            let n = Glibc.write(fd, p, left)
            #else
            let n = Darwin.write(fd, p, left)
            #endif
            if n < 0 {
                if errno == EINTR { continue }
                throw ArchiveError.system("write", path: path)
            }
            if n == 0 { throw ArchiveError(.io, path: path, "write failed: wrote 0 bytes") }
            p += n
            left -= n
            bytesWritten += n
        }
    }

    /// Writes every byte of `bytes`.
    mutating func write(_ bytes: [UInt8]) throws(ArchiveError) {
        let result: Result<Void, ArchiveError> = bytes.withUnsafeBytes { buf in
            do throws(ArchiveError) { try write(buf); return .success(()) } catch { return .failure(error) }
        }
        try result.get()
    }

    /// Closes the descriptor when owned (once; later calls do nothing).
    mutating func close() throws(ArchiveError) {
        guard owned, !closed else { return }
        closed = true
        #if canImport(Glibc)
        let r = Glibc.close(fd)
        #else
        let r = Darwin.close(fd)
        #endif
        if r != 0 && errno != EINTR { throw ArchiveError.system("close", path: path) }
    }
}
