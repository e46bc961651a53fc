#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte-level pieces shared by the package's hand-written readers of JSON-shaped bytes
/// (the parser's scans here, the envelope walk of BridgeProtocol, the archive's record
/// lines and the analyzer's connection names). Public and `@inlinable`: they run once
/// per token or field, and a call across a module boundary per token cost the envelope
/// walk 8% (`@inlinable package` declarations were still called, not inlined).
public enum JSONBytes {
    /// Moves `i` past JSON whitespace (space, tab, LF, CR).
    @inlinable @inline(__always)
    public static func skipWhitespace(_ b: UnsafeRawBufferPointer, _ i: inout Int) {
        while i < b.count {
            let c = b[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            i &+= 1
        }
    }

    /// Whether the `count` bytes at `p` and `q` are equal: two overlapping words for 4 to
    /// 16 bytes (the keys and words of envelopes and record lines), `memcmp` otherwise.
    @inlinable @inline(__always)
    public static func equal(_ p: UnsafeRawPointer, _ q: UnsafeRawPointer, count k: Int) -> Bool {
        if k >= 8 && k <= 16 {
            return p.loadUnaligned(as: UInt64.self) == q.loadUnaligned(as: UInt64.self)
                && (p + (k &- 8)).loadUnaligned(as: UInt64.self) == (q + (k &- 8)).loadUnaligned(as: UInt64.self)
        }
        if k >= 4 && k < 8 {
            return p.loadUnaligned(as: UInt32.self) == q.loadUnaligned(as: UInt32.self)
                && (p + (k &- 4)).loadUnaligned(as: UInt32.self) == (q + (k &- 4)).loadUnaligned(as: UInt32.self)
        }
        return k == 0 || memcmp(p, q, k) == 0
    }

    /// Whether the bytes of `b` at `i` are `text`; `i` then moves past them.
    @inlinable @inline(__always)
    public static func literal(_ b: UnsafeRawBufferPointer, _ i: inout Int, _ text: StaticString) -> Bool {
        let k = text.utf8CodeUnitCount
        guard i &+ k <= b.count, equal(b.baseAddress! + i, UnsafeRawPointer(text.utf8Start), count: k) else { return false }
        i &+= k
        return true
    }

    /// The first eight bytes of `bytes` (fewer are zero-padded) as a little-endian number.
    @inlinable @inline(__always)
    public static func word(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        if bytes.count >= 8 { return UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)) }
        var v: UInt64 = 0
        for k in 0..<bytes.count { v |= UInt64(bytes[k]) << (k &* 8) }
        return v
    }
}
