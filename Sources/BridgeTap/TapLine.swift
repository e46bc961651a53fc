/// Builds the tap log lines of docs/TAP.md §1 (docs/FORMAT.md §9), each ending in LF.
enum TapLine {
    /// A message line carrying `text` (the message's UTF-8) or, with `rawJSON`, `msg`.
    static func message(time: Int64, direction: String, connection: String, text: [UInt8], rawJSON: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.count + connection.utf8.count + 64)
        out.append(contentsOf: #"{"t":"#.utf8)
        out.append(contentsOf: String(time).utf8)
        out.append(contentsOf: #","dir":""#.utf8)
        out.append(contentsOf: direction.utf8)
        out.append(contentsOf: #"","conn":"#.utf8)
        appendString(connection.utf8, to: &out)
        if rawJSON {
            out.append(contentsOf: #","msg":"#.utf8)
            out.append(contentsOf: text)
        } else {
            out.append(contentsOf: #","text":"#.utf8)
            appendString(text, to: &out)
        }
        out.append(contentsOf: "}\n".utf8)
        return out
    }

    /// A line for a message that could not be serialized; the importer records an error.
    static func unrecordable(time: Int64, direction: String, connection: String, reason: String) -> [UInt8] {
        var out = Array(#"{"t":\#(time),"dir":"\#(direction)","conn":"#.utf8)
        appendString(connection.utf8, to: &out)
        out.append(contentsOf: #","unrecordable":"#.utf8)
        appendString(reason.utf8, to: &out)
        out.append(contentsOf: "}\n".utf8)
        return out
    }

    /// The header line that starts every file.
    static func header(time: Int64, seq: Int, first: Bool, redacted: Bool) -> [UInt8] {
        Array(#"{"t":\#(time),"event":"tap","tap":"swift","version":1,"seq":\#(seq),"first":\#(first),"redacted":\#(redacted)}"#.utf8) + [0x0A]
    }

    /// The line accounting for messages not stored.
    static func drop(_ tally: TapDropTally) -> [UInt8] {
        var out = Array(#"{"t":\#(tally.firstTime),"event":"drop","conn":"#.utf8)
        appendString(tally.connection.utf8, to: &out)
        out.append(contentsOf: #","count":\#(tally.count),"bytes":\#(tally.bytes),"reason":"#.utf8)
        let reason = "\(tally.reason): \(tally.count) messages (\(tally.bytes) bytes) from \(tally.firstTime) to \(tally.lastTime) not recorded"
        appendString(reason.utf8, to: &out)
        out.append(contentsOf: "}\n".utf8)
        return out
    }

    /// Appends `s` (valid UTF-8) as a JSON string: `"` `\` and controls escaped.
    static func appendString<S: Sequence>(_ s: S, to out: inout [UInt8]) where S.Element == UInt8 {
        let hex = Array("0123456789abcdef".utf8)
        out.append(0x22)
        for c in s {
            switch c {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case ..<0x20: out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(c >> 4)], hex[Int(c & 15)]])
            default: out.append(c)
            }
        }
        out.append(0x22)
    }
}

/// Messages not stored for one reason, since the last drop line.
struct TapDropTally: Sendable {
    /// Why (`tap queue full`, `message larger than the limit of N bytes`, `write failed: ...`).
    var reason: String
    /// The connection of the first message not stored.
    var connection: String
    /// Its time (epoch ms).
    var firstTime: Int64
    /// The last one's time.
    var lastTime: Int64
    /// Messages.
    var count = 0
    /// Their bytes.
    var bytes = 0
}
