import BridgeJSON
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
            guard let f = Self.plainFields(b) else { return nil }
            let base = line.slice.startIndex
            return ArchiveRecordView(seq: f.seq, time: f.time, direction: ArchiveDirection(rawValue: Self.string(b, f.dir)),
                                     connection: Self.string(b, f.conn),
                                     payload: line.slice[(base + f.msg.lowerBound)..<(base + f.msg.upperBound)], encoding: .message)
        }
    }

    /// A consumer's test that a message (its bytes, its line's, the line's other members)
    /// is exactly one valid JSON text: see ``plainFields(_:accept:)``.
    package typealias PlainAccept = (_ msg: UnsafeRawBufferPointer, _ line: UnsafeRawBufferPointer, _ fields: PlainFields) -> Bool

    /// Where the members of a plain record line are (see ``plainRecord(_:)``): `dir`
    /// and `conn` as the ranges of their contents, `msg` as its value's.
    package struct PlainFields {
        /// `seq`.
        package var seq: Int
        /// `t`.
        package var time: Int64
        /// The contents of `dir`'s string.
        package var dir: Range<Int>
        /// The contents of `conn`'s string.
        package var conn: Range<Int>
        /// `msg`'s value.
        package var msg: Range<Int>
        /// Whether `msg`, the last member, was taken to run to the line's closing brace
        /// and the caller's test said it is one JSON text (see ``plainFields(_:accept:)``).
        package var accepted = false
    }

    /// The members of the plain record line `b` (without its newline); nil for any other line.
    ///
    /// With `accept`: when `msg` comes last and is an object or array, its value is first
    /// taken to run to the line's closing brace (spaces off) and handed to `accept`, the
    /// caller's check that it is exactly one valid JSON text; if so, no walk over it is
    /// needed (the walk would end at the same byte: the bracket that closes a valid
    /// text is its last byte), and ``PlainFields/accepted`` says so. Otherwise the value
    /// is walked as without `accept`. (Not for numbers and literals: the walk ends them
    /// at a space or tab but not at a CR, which the trimming would take off.)
    /// `accept` gets the message's bytes, the line's and the members read so far (all
    /// but `msg`).
    static func plainFields(_ b: UnsafeRawBufferPointer, accept: PlainAccept? = nil) -> PlainFields? {
        if let (fields, msg) = canonicalFields(b) { return lastMessage(b, fields, at: msg, accept: accept) }
        return generalFields(b, accept: accept)
    }

    /// ``plainFields(_:accept:)`` of a line in any layout: each member found and matched
    /// in turn.
    static func generalFields(_ b: UnsafeRawBufferPointer, accept: PlainAccept? = nil) -> PlainFields? {
        var i = RecordLineScanner.skipSpace(b, 0)
        guard i < b.count, b[i] == UInt8(ascii: "{") else { return nil }
        var seen = 0
        var f = PlainFields(seq: 0, time: 0, dir: 0..<0, conn: 0..<0, msg: 0..<0)
        i = RecordLineScanner.skipSpace(b, i + 1)
        while true {
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { return nil }
            guard let keyEnd = RecordLineScanner.shortStringEnd(b, i) else { return nil }
            let key = (i + 1)..<(keyEnd - 1)
            i = RecordLineScanner.skipSpace(b, keyEnd)
            guard i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
            i = RecordLineScanner.skipSpace(b, i + 1)
            // (A line may end right after the colon: `i` is then past its last byte.)
            if let accept, seen == 30, i < b.count, b[i] == UInt8(ascii: "{") || b[i] == UInt8(ascii: "["), plainKey(b, key, "msg"),
               let tail = tailValue(b, from: i),
               accept(UnsafeRawBufferPointer(rebasing: b[tail]), b, f) {
                f.msg = tail
                f.accepted = true
                return f
            }
            let end: Int
            let bit: Int
            if plainKey(b, key, "seq") || plainKey(b, key, "t") {
                // An integer is read in the pass that finds its end: the walk
                // (``RecordLineScanner/valueEnd(_:_:maxDepth:)``) would stop where its
                // digits do, at a delimiter, and any other byte there makes it no integer.
                let isSeq = key.count == 3
                guard let (v, e) = plainInteger(b, from: i, negative: !isSeq),
                      e == b.count || RecordLineScanner.endsScalar(b[e]) else { return nil }
                end = e
                if isSeq {
                    bit = 2
                    f.seq = Int(v)
                } else {
                    bit = 4
                    f.time = v
                }
            } else {
                guard let e = RecordLineScanner.valueEnd(b, i, maxDepth: BridgeArchiveFormat.lineLimits.maxDepth) else { return nil }
                end = e
                let value = i..<end
                if plainKey(b, key, "msg") {
                    bit = 1
                    f.msg = value
                } else if plainKey(b, key, "dir") {
                    bit = 8
                    guard let s = plainString(b, value) else { return nil }
                    f.dir = s
                } else if plainKey(b, key, "conn") {
                    bit = 16
                    guard let s = plainString(b, value) else { return nil }
                    f.conn = s
                } else {
                    return nil
                }
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
        return seen == 31 ? f : nil
    }

    /// `msg`, the last member, whose value starts at `i`, read as the general loop reads
    /// it after the other four (``canonicalFields(_:)``): taken to the line's closing
    /// brace when `accept` says so, else walked, and then only `}` may follow.
    static func lastMessage(_ b: UnsafeRawBufferPointer, _ fields: PlainFields, at i: Int, accept: PlainAccept?) -> PlainFields? {
        var f = fields
        // Called through the optional: `if let accept` copied the closure, a retain and a
        // release of its context per line.
        if accept != nil, b[i] == UInt8(ascii: "{") || b[i] == UInt8(ascii: "["),
           let tail = tailValue(b, from: i),
           accept?(UnsafeRawBufferPointer(rebasing: b[tail]), b, f) == true {
            f.msg = tail
            f.accepted = true
            return f
        }
        guard let end = RecordLineScanner.valueEnd(b, i, maxDepth: BridgeArchiveFormat.lineLimits.maxDepth) else { return nil }
        f.msg = i..<end
        let close = RecordLineScanner.skipSpace(b, end)
        guard close < b.count, b[close] == UInt8(ascii: "}"), RecordLineScanner.skipSpace(b, close + 1) == b.count else { return nil }
        return f
    }

    /// From `start` to the line's closing brace, spaces off both ends; nil when the line
    /// does not end with `}` or nothing is left.
    static func tailValue(_ b: UnsafeRawBufferPointer, from start: Int) -> Range<Int>? {
        var end = b.count
        while end > start, RecordLineScanner.isSpace(b[end - 1]) { end -= 1 }
        guard end > start, b[end - 1] == UInt8(ascii: "}") else { return nil }
        end -= 1
        while end > start, RecordLineScanner.isSpace(b[end - 1]) { end -= 1 }
        return end > start ? start..<end : nil
    }

    static func string(_ b: UnsafeRawBufferPointer, _ r: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: b[r]), as: UTF8.self)
    }

    static func plainKey(_ b: UnsafeRawBufferPointer, _ key: Range<Int>, _ name: StaticString) -> Bool {
        key.count == name.utf8CodeUnitCount && memcmp(b.baseAddress! + key.lowerBound, name.utf8Start, key.count) == 0
    }

    /// The integer lexeme starting at `start` (`-` only when `negative`, no leading zero,
    /// at most 19 digits, fitting in Int64) and where its digits end; nil when there is
    /// none. A lexeme is what `Int64(_:)` reads, with `-0` and without a leading zero.
    static func plainInteger(_ b: UnsafeRawBufferPointer, from start: Int, negative: Bool) -> (Int64, end: Int)? {
        var k = start
        let minus = negative && k < b.count && b[k] == UInt8(ascii: "-")
        if minus { k += 1 }
        let first = k
        // The first 18 digits cannot overflow (read eight at a time, unchecked); a 19th
        // is checked.
        let run = JSONBytes.leadingDigits(b, from: first, max: 18)
        var v = Int64(truncatingIfNeeded: run.value)
        k = run.end
        if minus { v = -v }
        if k == first + 18, k < b.count, b[k] &- 0x30 <= 9 {
            let d = b[k] &- 0x30
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = minus ? m.subtractingReportingOverflow(Int64(d)) : m.addingReportingOverflow(Int64(d))
            guard !o1, !o2 else { return nil }
            v = s
            k += 1
            if k < b.count, b[k] &- 0x30 <= 9 { return nil }  // a 20th digit
        }
        let digits = k - first
        guard digits >= 1, !(digits > 1 && b[first] == UInt8(ascii: "0")) else { return nil }
        return (v, k)
    }


    /// Where the contents of a string of printable ASCII without escapes (`"` ... `"`) are.
    static func plainString(_ b: UnsafeRawBufferPointer, _ r: Range<Int>) -> Range<Int>? {
        guard r.count >= 2, b[r.lowerBound] == UInt8(ascii: "\""), b[r.upperBound - 1] == UInt8(ascii: "\"") else { return nil }
        let inner = (r.lowerBound + 1)..<(r.upperBound - 1)
        for k in inner {
            let c = b[k]
            guard c >= 0x20, c < 0x7F, c != UInt8(ascii: "\\"), c != UInt8(ascii: "\"") else { return nil }
        }
        return inner
    }
}
