import BridgeJSON

/// Builds archive lines (without the newline) byte by byte, exactly as docs/FORMAT.md
/// §3–§6 spells them: compact JSON, members in the documented order, optional members
/// left out when absent. Pure: no I/O.
struct ArchiveLineEncoder {
    /// The longest line it builds (``BridgeArchiveFormat/maxLineBytes`` by default).
    var maxLineBytes = BridgeArchiveFormat.maxLineBytes

    /// The header line.
    func header(_ h: ArchiveHeader, into out: inout [UInt8]) {
        out.append(contentsOf: #"{"bridgescope":"session","formatVersion":"#.utf8)
        out.append(contentsOf: String(BridgeArchiveFormat.currentVersion).utf8)
        out.append(contentsOf: #","source":"#.utf8)
        JSONWriter.writeString(h.source, into: &out)
        out.append(contentsOf: #","host":"#.utf8)
        optionalString(h.host, into: &out)
        out.append(contentsOf: #","filter":"#.utf8)
        optionalString(h.filter, into: &out)
        out.append(contentsOf: #","startTime":"#.utf8)
        out.append(contentsOf: String(h.startTime).utf8)
        out.append(contentsOf: #","toolVersion":"#.utf8)
        JSONWriter.writeString(h.toolVersion, into: &out)
        let writer = JSONWriter()
        for m in h.extra {
            out.append(UInt8(ascii: ","))
            JSONWriter.writeString(m.key, into: &out)
            out.append(UInt8(ascii: ":"))
            writer.write(m.value, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The record line, or `false` (and `out` unchanged) when even the `b64` form would
    /// be longer than ``maxLineBytes``.
    func record(_ r: ArchiveRecord, into out: inout [UInt8]) -> Bool {
        r.payload.withUnsafeBytes { p in
            record(seq: r.seq, time: r.time, direction: r.direction, connection: r.connection, payload: p,
                   encoding: r.encoding, into: &out)
        }
    }

    /// The record line from its parts (no copy of the payload first). With `seq` nil the
    /// line has no `seq` member: a tap log line (docs/FORMAT.md §9). `encodedConnection`,
    /// when given, is `connection` already written as a JSON string (a writer keeps the
    /// last one, since consecutive records mostly share it).
    func record(seq: Int?, time: Int64, direction: ArchiveDirection, connection: String, encodedConnection: [UInt8]? = nil,
                payload p: UnsafeRawBufferPointer, encoding preferred: ArchivePayloadEncoding, into out: inout [UInt8]) -> Bool {
        let mark = out.count
        if let seq {
            Self.append(#"{"seq":"#, into: &out)
            Self.appendDecimal(Int64(seq), into: &out)
            Self.append(#","t":"#, into: &out)
        } else {
            Self.append(#"{"t":"#, into: &out)
        }
        Self.appendDecimal(time, into: &out)
        Self.append(#","dir":"#, into: &out)
        JSONWriter.writeString(direction.rawValue, into: &out)
        Self.append(#","conn":"#, into: &out)
        if let encodedConnection {
            out.append(contentsOf: encodedConnection)
        } else {
            JSONWriter.writeString(connection, into: &out)
        }
        return payload(p, encoding: preferred, mark: mark, into: &out)
    }

    /// The tap-log line of a plain archive record line (``ArchiveReader/PlainLine``), from
    /// its parts as they are in that line: `quotedDirection` and `quotedConnection` are
    /// the JSON strings with their quotes, plain (printable ASCII, no escape), so they are
    /// what ``JSONWriter/writeString(_:into:)`` would write for their contents, and no
    /// `String` is made. The same bytes as ``record(seq:time:direction:connection:encodedConnection:payload:encoding:into:)``
    /// with `seq` nil (held by the export tests).
    func tapRecord(time: Int64, quotedDirection: UnsafeRawBufferPointer, quotedConnection: UnsafeRawBufferPointer,
                   payload p: UnsafeRawBufferPointer, encoding preferred: ArchivePayloadEncoding, into out: inout [UInt8]) -> Bool {
        let mark = out.count
        Self.append(#"{"t":"#, into: &out)
        Self.appendDecimal(time, into: &out)
        Self.append(#","dir":"#, into: &out)
        out.append(contentsOf: quotedDirection)
        Self.append(#","conn":"#, into: &out)
        out.append(contentsOf: quotedConnection)
        return payload(p, encoding: preferred, mark: mark, into: &out)
    }

    /// The payload member and the closing brace of a record line begun at `mark`;
    /// `false` (and `out` back at `mark`) when no form fits ``maxLineBytes``.
    private func payload(_ p: UnsafeRawBufferPointer, encoding preferred: ArchivePayloadEncoding, mark: Int,
                         into out: inout [UInt8]) -> Bool {
        let prefixEnd = out.count
        let budget = maxLineBytes - (prefixEnd - mark) - 2
        let ok: Bool = {
            var encoding = preferred
            if encoding == .message && p.count > budget { encoding = .base64 }
            if encoding == .message {
                Self.append(#","msg":"#, into: &out)
                out.append(contentsOf: p)
            } else if encoding == .text {
                Self.append(#","text":"#, into: &out)
                appendEscaped(p, into: &out)
                if out.count - mark > maxLineBytes - 1 {
                    out.removeSubrange(prefixEnd...)
                    encoding = .base64
                }
            }
            if encoding == .base64 {
                guard Base64.encodedLength(p.count) + 10 <= budget else { return false }
                Self.append(#","b64":""#, into: &out)
                Base64.encode(p, into: &out)
                out.append(UInt8(ascii: "\""))
            }
            return true
        }()
        guard ok else {
            out.removeSubrange(mark...)
            return false
        }
        out.append(UInt8(ascii: "}"))
        return true
    }

    /// The event line. A `reason` is cut to 4 KiB so an event always fits.
    func event(_ e: ArchiveEvent, into out: inout [UInt8]) {
        out.append(contentsOf: #"{"seq":"#.utf8)
        Self.appendDecimal(Int64(e.seq), into: &out)
        out.append(contentsOf: #","t":"#.utf8)
        Self.appendDecimal(e.time, into: &out)
        out.append(contentsOf: #","event":"#.utf8)
        JSONWriter.writeString(e.kind.rawValue, into: &out)
        if let c = e.connection {
            out.append(contentsOf: #","conn":"#.utf8)
            JSONWriter.writeString(c, into: &out)
        }
        if let d = e.direction {
            out.append(contentsOf: #","dir":"#.utf8)
            JSONWriter.writeString(d.rawValue, into: &out)
        }
        integer("bytes", e.bytes, into: &out)
        integer("count", e.count, into: &out)
        integer("line", e.line, into: &out)
        if let reason = e.reason {
            out.append(contentsOf: #","reason":"#.utf8)
            let cut = reason.utf8.count > 4096 ? String(decoding: reason.utf8.prefix(4096), as: UTF8.self) : reason
            JSONWriter.writeString(cut, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The trailer line.
    func trailer(_ t: ArchiveTrailer, into out: inout [UInt8]) {
        out.append(contentsOf: #"{"bridgescope":"trailer""#.utf8)
        integer("records", t.records, into: &out)
        integer("events", t.events, into: &out)
        integer("bytes", t.bytes, into: &out)
        integer("drops", t.drops, into: &out)
        integer("gaps", t.gaps, into: &out)
        integer("gapBytes", t.gapBytes, into: &out)
        integer("errors", t.errors, into: &out)
        out.append(contentsOf: #","endTime":"#.utf8)
        Self.appendDecimal(t.endTime, into: &out)
        out.append(UInt8(ascii: "}"))
    }

    private func optionalString(_ s: String?, into out: inout [UInt8]) {
        if let s { JSONWriter.writeString(s, into: &out) } else { out.append(contentsOf: "null".utf8) }
    }

    private func integer(_ key: StaticString, _ value: Int?, into out: inout [UInt8]) {
        guard let value else { return }
        out.append(UInt8(ascii: ","))
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        out.append(contentsOf: "\":".utf8)
        Self.appendDecimal(Int64(value), into: &out)
    }

    /// Appends `value` in decimal, as `String(value)` spells it, without making a String
    /// (a 19-digit time would need a heap allocation).
    static func appendDecimal(_ value: Int64, into out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var m = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { d in
            var k = d.count
            // Two digits per division (a 19-digit time takes 10 instead of 19).
            while m >= 10 {
                let (q, r) = m.quotientAndRemainder(dividingBy: 100)
                let pair = Int(r)
                k -= 2
                d[k] = Self.digitPairs[pair &* 2]
                d[k + 1] = Self.digitPairs[pair &* 2 &+ 1]
                m = q
            }
            if m > 0 || k == d.count {
                k -= 1
                d[k] = UInt8(truncatingIfNeeded: m) &+ UInt8(ascii: "0")
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: d[k...]))
        }
    }

    /// Appends a literal's bytes with one copy (appending a `String`'s `utf8` view
    /// goes through its generic path: 3% of `export --jsonl` on small messages).
    @inline(__always)
    static func append(_ literal: StaticString, into out: inout [UInt8]) {
        literal.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    /// "00" "01" ... "99" as bytes.
    private static let digitPairs: [UInt8] = (0..<100).flatMap { [UInt8(ascii: "0") + UInt8($0 / 10), UInt8(ascii: "0") + UInt8($0 % 10)] }

    /// Appends valid UTF-8 bytes as a JSON string with the same minimal escapes as
    /// `JSONWriter.writeString` (no String round trip, so no copy).
    func appendEscaped(_ p: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let hex: StaticString = "0123456789abcdef"
        for c in p {
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(c)
            case 0x08: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "f"))
            case 0x0A: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
            case 0..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex.utf8Start[Int(c >> 4)])
                out.append(hex.utf8Start[Int(c & 0xF)])
            default: out.append(c)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
