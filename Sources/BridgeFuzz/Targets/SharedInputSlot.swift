#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file mapped into both the supervisor and its worker: the worker writes each case
/// before running it and counts executions, so when the worker dies the supervisor
/// still has the case that killed it, and when the count stops moving it knows the
/// worker hangs. Layout: `u64 magic`, `u64 executions`, `u64 length`, then the case in
/// ``FuzzInput/binary()`` form.
final class SharedInputSlot: @unchecked Sendable {
    /// Bytes mapped: 16 MiB (a case is at most 4 MiB of messages plus framing; a bigger one
    /// is recorded as truncated and cannot be replayed).
    public static let size = 16 << 20
    static let magic: UInt64 = 0x4253_465A_534C_4F54  // "BSFZSLOT"
    static let headerBytes = 24

    /// The file's path.
    public let path: String
    private let base: UnsafeMutableRawPointer

    /// Creates (`create`: truncating) and maps the file.
    public init(path: String, create: Bool) throws {
        self.path = path
        let fd = open(path, create ? (O_RDWR | O_CREAT | O_TRUNC) : O_RDWR, 0o600)
        guard fd >= 0 else { throw FuzzError(.io, "cannot open the crash slot \(path): errno \(errno)") }
        defer { close(fd) }
        if create { guard ftruncate(fd, off_t(Self.size)) == 0 else { throw FuzzError(.io, "cannot size \(path): errno \(errno)") } }
        guard let p = mmap(nil, Self.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            throw FuzzError(.io, "cannot map \(path): errno \(errno)")
        }
        base = p
        if create { base.storeBytes(of: Self.magic, as: UInt64.self) }
    }

    deinit { munmap(base, Self.size) }

    /// Records the case about to run and counts one execution.
    public func record(_ input: FuzzInput) {
        let bytes = input.binary()
        let n = min(bytes.count, Self.size - Self.headerBytes)
        bytes.withUnsafeBytes { (base + Self.headerBytes).copyMemory(from: $0.baseAddress!, byteCount: n) }
        (base + 16).storeBytes(of: UInt64(bytes.count), as: UInt64.self)
        let execs = (base + 8).load(as: UInt64.self)
        (base + 8).storeBytes(of: execs &+ 1, as: UInt64.self)
    }

    /// Executions counted so far.
    var executions: UInt64 { (base + 8).load(as: UInt64.self) }

    /// The last case recorded, if complete.
    var lastInput: FuzzInput? {
        let n = Int((base + 16).load(as: UInt64.self))
        guard n > 0, n <= Self.size - Self.headerBytes else { return nil }
        return FuzzInput(binary: UnsafeRawBufferPointer(start: base + Self.headerBytes, count: n))
    }

    /// Removes the file.
    public func remove() { unlink(path) }
}
