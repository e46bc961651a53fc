#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ArchiveInterpreter {
    /// The record line as the recorder writes it, read in one pass over its bytes with
    /// nothing allocated: exactly the members `seq`, `t`, `dir`, `conn` and `msg`, once
    /// each; `seq` and `t` plain integers (RFC 8259 lexemes without fraction or exponent),
    /// `dir` and `conn` strings of printable ASCII without escapes. Nil for anything else,
    /// and ``fastRecord(_:)`` (the general scan) reads the line: every line this accepts,
    /// that one accepts too, with the same record (held by the interpreter's tests).
    func plainRecord(_ line: ArchiveLine) -> ArchiveRecordView? {
        line.slice.withUnsafeBytes { b -> ArchiveRecordView? in
            var i = RecordLineScanner.skipSpace(b, 0)
            guard i < b.count, b[i] == UInt8(ascii: "{") else { return nil }
            var seen = 0
            var seq = 0, time: Int64 = 0, dir: String?, conn: String?, msg: Range<Int>?
            i = RecordLineScanner.skipSpace(b, i + 1)
            while true {
                guard i < b.count, b[i] == UInt8(ascii: "\"") else { return nil }
                guard let keyEnd = RecordLineScanner.stringEnd(b, i) else { return nil }
                let key = (i + 1)..<(keyEnd - 1)
                i = RecordLineScanner.skipSpace(b, keyEnd)
                guard i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
                i = RecordLineScanner.skipSpace(b, i + 1)
                guard let end = RecordLineScanner.valueEnd(b, i, maxDepth: BridgeArchiveFormat.lineLimits.maxDepth) else { return nil }
                let value = i..<end
                let bit: Int
                if Self.plainKey(b, key, "msg") {
                    bit = 1
                    msg = value
                } else if Self.plainKey(b, key, "seq") {
                    bit = 2
                    guard let v = Self.plainInteger(b, value, negative: false) else { return nil }
                    seq = Int(v)
                } else if Self.plainKey(b, key, "t") {
                    bit = 4
                    guard let v = Self.plainInteger(b, value, negative: true) else { return nil }
                    time = v
                } else if Self.plainKey(b, key, "dir") {
                    bit = 8
                    guard let s = Self.plainString(b, value) else { return nil }
                    dir = s
                } else if Self.plainKey(b, key, "conn") {
                    bit = 16
                    guard let s = Self.plainString(b, value) else { return nil }
                    conn = s
                } else {
                    return nil
                }
                guard seen & bit == 0 else { return nil }
                seen |= bit
                i = RecordLineScanner.skipSpace(b, end)
                guard i < b.count else { return nil }
                if b[i] == UInt8(ascii: "}") {
                    guard RecordLineScanner.skipSpace(b, i + 1) == b.count else { return nil }
                    break
                }
                guard b[i] == UInt8(ascii: ",") else { return nil }
                i = RecordLineScanner.skipSpace(b, i + 1)
            }
            guard seen == 31, let dir, let conn, let msg else { return nil }
            return ArchiveRecordView(seq: seq, time: time, direction: ArchiveDirection(rawValue: dir), connection: conn,
                                     payload: line.slice[(line.slice.startIndex + msg.lowerBound)..<(line.slice.startIndex + msg.upperBound)], encoding: .message)
        }
    }

    static func plainKey(_ b: UnsafeRawBufferPointer, _ key: Range<Int>, _ name: StaticString) -> Bool {
        key.count == name.utf8CodeUnitCount && memcmp(b.baseAddress! + key.lowerBound, name.utf8Start, key.count) == 0
    }

    /// An integer lexeme (`-` only when `negative`, no leading zero) that fits in Int64.
    static func plainInteger(_ b: UnsafeRawBufferPointer, _ r: Range<Int>, negative: Bool) -> Int64? {
        var k = r.lowerBound
        let minus = negative && k < r.upperBound && b[k] == UInt8(ascii: "-")
        if minus { k += 1 }
        let digits = r.upperBound - k
        guard digits >= 1, digits <= 19, !(digits > 1 && b[k] == UInt8(ascii: "0")) else { return nil }
        var v: Int64 = 0
        while k < r.upperBound {
            let c = b[k]
            guard c >= 0x30, c <= 0x39 else { return nil }
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = minus ? m.subtractingReportingOverflow(Int64(c - 0x30)) : m.addingReportingOverflow(Int64(c - 0x30))
            guard !o1, !o2 else { return nil }
            v = s
            k += 1
        }
        return v
    }

    /// The contents of a string of printable ASCII without escapes (`"` ... `"`).
    static func plainString(_ b: UnsafeRawBufferPointer, _ r: Range<Int>) -> String? {
        guard r.count >= 2, b[r.lowerBound] == UInt8(ascii: "\""), b[r.upperBound - 1] == UInt8(ascii: "\"") else { return nil }
        let inner = (r.lowerBound + 1)..<(r.upperBound - 1)
        for k in inner {
            let c = b[k]
            guard c >= 0x20, c < 0x7F, c != UInt8(ascii: "\\"), c != UInt8(ascii: "\"") else { return nil }
        }
        return String(decoding: UnsafeRawBufferPointer(rebasing: b[inner]), as: UTF8.self)
    }
}
