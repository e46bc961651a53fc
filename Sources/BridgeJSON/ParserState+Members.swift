#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The scan behind ``JSONMemberScanner``: the validator's checks (``skipString()``,
/// ``skipNumber()``, literals) with a duplicate-key check per object and the members of
/// the first levels recorded. Every way out that is not "accepted, no duplicates" throws
/// (the scanner turns it into false), so nothing here reports errors in words.
extension ParserState {
    /// What every refusal throws: the scanner only says false, so no location is built.
    static let notScanned = JSONError(code: .unexpectedByte, offset: 0, reason: "not scanned")

    mutating func scanDocument(_ s: inout JSONMemberScanner) throws(JSONError) {
        guard b.count <= limits.maxInputBytes else { throw Self.notScanned }
        skipWhitespace()
        guard i < b.count else { throw Self.notScanned }
        try scanValue(depth: 0, parent: -1, record: s.recordedDepth, &s)
        skipWhitespace()
        if i < b.count { throw Self.notScanned }
    }

    mutating func scanValue(depth: Int, parent: Int, record: Int, _ s: inout JSONMemberScanner) throws(JSONError) {
        guard i < b.count else { throw Self.notScanned }
        switch b[i] {
        case UInt8(ascii: "{"): try scanObject(depth: depth + 1, parent: parent, record: record, &s)
        case UInt8(ascii: "["): try scanArray(depth: depth + 1, &s)
        default: try skipValue(depth: depth)  // a scalar
        }
    }

    mutating func scanArray(depth: Int, _ s: inout JSONMemberScanner) throws(JSONError) {
        guard depth <= limits.maxDepth, depth <= JSONMemberScanner.maxRecursionDepth else { throw Self.notScanned }
        i += 1
        skipWhitespace()
        if i < b.count && b[i] == UInt8(ascii: "]") {
            i += 1
            return
        }
        var count = 0
        while true {
            skipWhitespace()
            if i < b.count && b[i] == UInt8(ascii: "]") { throw Self.notScanned }  // trailing comma
            try scanValue(depth: depth, parent: -1, record: 0, &s)
            count += 1
            guard count <= limits.maxMembers else { throw Self.notScanned }
            skipWhitespace()
            guard i < b.count else { throw Self.notScanned }
            let c = b[i]
            i += 1
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "]") { return }
            throw Self.notScanned
        }
    }

    mutating func scanObject(depth: Int, parent: Int, record: Int, _ s: inout JSONMemberScanner) throws(JSONError) {
        guard depth <= limits.maxDepth, depth <= JSONMemberScanner.maxRecursionDepth else { throw Self.notScanned }
        i += 1
        skipWhitespace()
        if i < b.count && b[i] == UInt8(ascii: "}") {
            i += 1
            return
        }
        let keyBase = s.keyCount
        var count = 0
        while true {
            skipWhitespace()
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw Self.notScanned }
            // A key with an escape is refused: the parser compares decoded keys. The
            // static scan takes no copy of `self` (``scanPlainString(quote:)``).
            let (end, stop) = Self.stringEnd(b, from: i &+ 1)
            guard stop == UInt8(ascii: "\""), end &- i &- 1 <= limits.maxStringBytes else { throw Self.notScanned }
            let key = (i + 1)..<end
            i = end + 1
            guard count < JSONMemberScanner.maxCheckedMembers else { throw Self.notScanned }
            guard s.addKey(key, of: b, from: keyBase) else { throw Self.notScanned }
            skipWhitespace()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { throw Self.notScanned }
            i += 1
            skipWhitespace()
            let start = i
            if record > 0 {
                let index = s.record(JSONMemberSpan(key: key, value: start..<start, parent: parent))
                try scanValue(depth: depth, parent: index, record: record - 1, &s)
                s.setValue(index, start..<i)
            } else {
                try scanValue(depth: depth, parent: -1, record: 0, &s)
            }
            count += 1
            guard count <= limits.maxMembers else { throw Self.notScanned }
            skipWhitespace()
            guard i < b.count else { throw Self.notScanned }
            let c = b[i]
            i += 1
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "}") {
                s.keyCount = keyBase
                return
            }
            throw Self.notScanned
        }
    }
}
