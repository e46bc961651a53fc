extension ParserState {
    /// Records a ``DuplicateKey`` for every member whose name an earlier member of the
    /// same object already has (compared by exact bytes): pairwise for small objects, a
    /// table for large ones.
    mutating func findDuplicates(_ members: [JSONObject.Member], depth: Int) {
        if members.count <= 12 {
            for a in 1..<members.count {
                for p in 0..<a where members[p].key.utf8Equals(members[a].key) {
                    duplicates.append(DuplicateKey(key: members[a].key, firstOffset: members[p].keyOffset,
                                                   duplicateOffset: members[a].keyOffset, depth: depth))
                    break
                }
            }
            return
        }
        var seen: [ExactKey: Int] = [:]
        seen.reserveCapacity(members.count)
        for m in members {
            if let first = seen[ExactKey(key: m.key)] {
                duplicates.append(DuplicateKey(key: m.key, firstOffset: first, duplicateOffset: m.keyOffset, depth: depth))
            } else {
                seen[ExactKey(key: m.key)] = m.keyOffset
            }
        }
    }

    /// A short explanation for bytes that often show up where JSON has no place for them
    /// (a BOM, comments, `NaN`, single quotes, UTF-16), or "" when none applies.
    func hint(at k: Int) -> String {
        let c = b[k]
        func next(_ d: Int) -> UInt8? { k + d < b.count ? b[k + d] : nil }
        switch c {
        case 0xEF where next(1) == 0xBB && next(2) == 0xBF:
            return " (a UTF-8 byte-order mark: JSON text must not start with one)"
        case 0xFE, 0xFF:
            return " (this looks like a UTF-16 byte-order mark: JSON text must be UTF-8)"
        case 0x00:
            return " (a NUL byte: UTF-16 or UTF-32 text? JSON text must be UTF-8)"
        case UInt8(ascii: "/"):
            return " (JSON has no comments)"
        case UInt8(ascii: "'"):
            return " (JSON strings use double quotes)"
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            return " (NaN and Infinity are not JSON numbers)"
        case UInt8(ascii: "+"):
            return " (a JSON number must not start with '+')"
        case UInt8(ascii: "."):
            return " (a JSON number needs a digit before the decimal point)"
        default:
            return ""
        }
    }

    func describe(_ c: UInt8) -> String {
        switch c {
        case 0x20...0x7E: return "'\(Character(Unicode.Scalar(c)))'"
        case 0x0A: return "newline"
        case 0x0D: return "carriage return"
        case 0x09: return "tab"
        default:
            let hex = String(c, radix: 16, uppercase: true)
            return "byte 0x\(hex.count == 1 ? "0" + hex : hex)"
        }
    }
}
