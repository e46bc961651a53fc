import BridgeJSON
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte-level reading of the scanned members (the bytes are known valid JSON).
extension EnvelopeScanner {
    /// Whether the member's key is `name` (ASCII).
    static func key(_ m: JSONMemberSpan, _ b: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
        m.key.count == name.utf8CodeUnitCount && memcmp(b.baseAddress! + m.key.lowerBound, name.utf8Start, m.key.count) == 0
    }

    /// Whether the bytes in `r` are exactly `text`.
    static func equals(_ b: UnsafeRawBufferPointer, _ r: Range<Int>, _ text: StaticString) -> Bool {
        r.count == text.utf8CodeUnitCount && memcmp(b.baseAddress! + r.lowerBound, text.utf8Start, r.count) == 0
    }

    /// Whether the bytes in `r` are exactly the UTF-8 of `text`.
    static func equals(_ b: UnsafeRawBufferPointer, _ r: Range<Int>, _ text: String) -> Bool {
        var t = text
        return t.withUTF8 { u in r.count == u.count && memcmp(b.baseAddress! + r.lowerBound, u.baseAddress!, r.count) == 0 }
    }

    /// The contents of the string value in `r` (between its quotes) when it has no
    /// escape; nil for another kind of value or an escaped string.
    static func plainString(_ b: UnsafeRawBufferPointer, _ r: Range<Int>) -> Range<Int>? {
        guard r.count >= 2, b[r.lowerBound] == UInt8(ascii: "\"") else { return nil }
        let inner = (r.lowerBound + 1)..<(r.upperBound - 1)
        if !inner.isEmpty, memchr(b.baseAddress! + inner.lowerBound, Int32(UInt8(ascii: "\\")), inner.count) != nil { return nil }
        return inner
    }

    /// A non-negative integer lexeme (digits only) that fits in Int64; nil otherwise.
    static func milliseconds(_ b: UnsafeRawBufferPointer, _ r: Range<Int>) -> Int64? {
        guard !r.isEmpty, r.count <= 19 else { return nil }
        var v: Int64 = 0
        for k in r {
            let c = b[k]
            guard c >= 0x30, c <= 0x39 else { return nil }
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int64(c - 0x30))
            guard !o1, !o2 else { return nil }
            v = s
        }
        return v
    }

    /// A known status spelled by the string value in `r`.
    static func status(_ b: UnsafeRawBufferPointer, _ r: Range<Int>) -> Status? {
        if equals(b, r, "\"success\"") { return .success }
        if equals(b, r, "\"error\"") { return .error }
        if equals(b, r, "\"acknowledged\"") { return .acknowledged }
        if equals(b, r, "\"cancelled\"") { return .cancelled }
        if equals(b, r, "\"unsupported\"") { return .unsupported }
        return nil
    }
}
