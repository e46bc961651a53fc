/// The validating-only scan behind ``JSONValidator``: the same grammar, checks, limits,
/// order of checks and errors as the parsing functions of ``ParserState``, step for
/// step, but nothing is copied or built. Keep the two in step: the tests compare them
/// on every JSONTestSuite file and on many mutated inputs.
extension ParserState {
    mutating func validateDocument() throws(JSONError) {
        guard b.count <= limits.maxInputBytes else {
            throw fail(.inputTooLarge, at: limits.maxInputBytes,
                       "input is \(b.count) bytes, over the limit of \(limits.maxInputBytes) bytes")
        }
        skipWhitespace()
        guard i < b.count else {
            throw fail(.empty, at: i, b.isEmpty ? "empty input: expected a JSON value" : "only whitespace: expected a JSON value")
        }
        try skipValue(depth: 0)
        skipWhitespace()
        if i < b.count {
            throw fail(.trailingData, at: i, "unexpected \(describe(b[i])) after the JSON value: a JSON text holds exactly one value\(hint(at: i))")
        }
    }

    mutating func skipValue(depth: Int) throws(JSONError) {
        guard i < b.count else { throw fail(.unexpectedEnd, at: i, "input ended where a value was expected") }
        switch b[i] {
        case UInt8(ascii: "{"): try skipObject(depth: depth + 1)
        case UInt8(ascii: "["): try skipArray(depth: depth + 1)
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"): try skipLiteral("true", 0x74_72_75_65)
        case UInt8(ascii: "f"):
            if i + 5 <= b.count && b[i + 4] == UInt8(ascii: "e") {
                try skipLiteral("false", 0x66_61_6C_73, extra: 1)
            } else {
                try literal("false")
            }
        case UInt8(ascii: "n"): try skipLiteral("null", 0x6E_75_6C_6C)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try skipNumber()
        default:
            throw fail(.unexpectedByte, at: i, "unexpected \(describe(b[i])): expected a value (object, array, string, number, true, false or null)\(hint(at: i))")
        }
    }

    /// Skips `word` when its first four bytes, big-endian, are `first4` (and `extra`
    /// more bytes were checked by the caller); otherwise ``literal(_:)`` reports why not.
    @inline(__always)
    mutating func skipLiteral(_ word: String, _ first4: UInt32, extra: Int = 0) throws(JSONError) {
        if i + 4 <= b.count && UInt32(bigEndian: b.loadUnaligned(fromByteOffset: i, as: UInt32.self)) == first4 {
            i += 4 + extra
        } else {
            try literal(word)
        }
    }

    mutating func skipArray(depth: Int) throws(JSONError) {
        let open = i
        guard depth <= limits.maxDepth else {
            throw fail(.tooDeep, at: open, "nesting deeper than the limit of \(limits.maxDepth) levels")
        }
        i += 1
        skipWhitespace()
        if i < b.count && b[i] == UInt8(ascii: "]") {
            i += 1
            return
        }
        var count = 0
        while true {
            skipWhitespace()
            if i < b.count && b[i] == UInt8(ascii: "]") && count > 0 {
                throw fail(.unexpectedByte, at: i, "trailing comma before ']' (array opened at byte \(open))")
            }
            try skipValue(depth: depth)
            count += 1
            guard count <= limits.maxMembers else {
                throw fail(.tooManyMembers, at: open, "array has more than \(limits.maxMembers) elements")
            }
            skipWhitespace()
            guard i < b.count else {
                throw fail(.unexpectedEnd, at: i, "input ended inside the array opened at byte \(open)")
            }
            let c = b[i]
            i += 1
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "]") { return }
            throw fail(.unexpectedByte, at: i - 1, "unexpected \(describe(c)): expected ',' or ']' in the array opened at byte \(open)")
        }
    }

    mutating func skipObject(depth: Int) throws(JSONError) {
        let open = i
        guard depth <= limits.maxDepth else {
            throw fail(.tooDeep, at: open, "nesting deeper than the limit of \(limits.maxDepth) levels")
        }
        i += 1
        skipWhitespace()
        if i < b.count && b[i] == UInt8(ascii: "}") {
            i += 1
            return
        }
        var count = 0
        while true {
            skipWhitespace()
            guard i < b.count else {
                throw fail(.unexpectedEnd, at: i, "input ended inside the object opened at byte \(open)")
            }
            guard b[i] == UInt8(ascii: "\"") else {
                if b[i] == UInt8(ascii: "}") {
                    throw fail(.unexpectedByte, at: i, "trailing comma before '}' (object opened at byte \(open))")
                }
                throw fail(.unexpectedByte, at: i, "unexpected \(describe(b[i])): expected a string key in the object opened at byte \(open)")
            }
            let keyOffset = i
            try skipString()
            skipWhitespace()
            guard i < b.count else {
                throw fail(.unexpectedEnd, at: i, "input ended after the key \"\(key(at: keyOffset))\": expected ':'")
            }
            guard b[i] == UInt8(ascii: ":") else {
                throw fail(.unexpectedByte, at: i, "unexpected \(describe(b[i])): expected ':' after the key \"\(key(at: keyOffset))\"")
            }
            i += 1
            skipWhitespace()
            try skipValue(depth: depth)
            count += 1
            guard count <= limits.maxMembers else {
                throw fail(.tooManyMembers, at: open, "object has more than \(limits.maxMembers) members")
            }
            skipWhitespace()
            guard i < b.count else {
                throw fail(.unexpectedEnd, at: i, "input ended inside the object opened at byte \(open)")
            }
            let c = b[i]
            i += 1
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "}") { return }
            throw fail(.unexpectedByte, at: i - 1, "unexpected \(describe(c)): expected ',' or '}' in the object opened at byte \(open)")
        }
    }

    /// The decoded key whose string starts at `offset` (already validated), for the
    /// reasons that name it: only built when an error is thrown.
    func key(at offset: Int) -> String {
        var copy = self
        copy.i = offset
        return (try? copy.parseString()) ?? ""
    }

    /// ``parseString()`` without the copy.
    mutating func skipString() throws(JSONError) {
        let quote = i
        let (j, escaped) = try scanPlainString(quote: quote)
        if escaped { return try skipEscapedString(quote: quote, prefixEnd: j) }
        i = j + 1
    }

    /// ``parseEscapedString(quote:prefixEnd:)`` without the copy.
    mutating func skipEscapedString(quote: Int, prefixEnd: Int) throws(JSONError) {
        let start = quote + 1
        let n = b.count
        var j = prefixEnd
        while j < n {
            if j - start > limits.maxStringBytes {
                throw fail(.stringTooLong, at: quote, "string is over the limit of \(limits.maxStringBytes) bytes")
            }
            var run = j
            while run &+ 8 <= n && plainStringBytes8(at: run) { run &+= 8 }
            if run > j {
                j = run
                continue
            }
            let c = b[j]
            if c == UInt8(ascii: "\"") {
                i = j + 1
                return
            }
            if c == UInt8(ascii: "\\") {
                guard j + 1 < n else { break }
                let e = b[j + 1]
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    j += 2
                case UInt8(ascii: "u"):
                    let scalar = try unicodeEscape(at: j)
                    j += scalar.value > 0xFFFF ? 12 : 6
                default:
                    throw fail(.invalidEscape, at: j, "invalid escape '\\\(describe(e).trimmingQuotes)': JSON allows \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX")
                }
                continue
            }
            if c < 0x20 {
                throw fail(.controlCharacter, at: j, "unescaped control character \(describe(c)) in a string: write it as an escape such as \\n or \\u00XX")
            }
            if c < 0x80 {
                j += 1
            } else {
                let len = utf8SequenceLength(at: j)
                guard len > 0 else { throw invalidUTF8(at: j) }
                j += len
            }
        }
        throw fail(.unexpectedEnd, at: n, "input ended inside the string that starts at byte \(quote)")
    }

    /// Checks the number at `i` (RFC 8259 §6 exactly, at most `maxNumberBytes`) and moves
    /// past it; ``parseNumber()`` keeps the lexeme of what this accepted.
    mutating func skipNumber() throws(JSONError) {
        let start = i
        let n = b.count
        @inline(__always) func isDigit(_ k: Int) -> Bool { k < n && b[k] >= 0x30 && b[k] <= 0x39 }
        var j = i
        if b[j] == UInt8(ascii: "-") {
            j += 1
            guard isDigit(j) else {
                if j >= n { throw fail(.unexpectedEnd, at: j, "input ended after '-': expected a digit") }
                throw fail(.invalidNumber, at: j, "expected a digit after '-', found \(describe(b[j]))\(hint(at: j))")
            }
        }
        if b[j] == UInt8(ascii: "0") {
            j += 1
            if isDigit(j) {
                throw fail(.invalidNumber, at: j - 1, "numbers must not have leading zeros")
            }
        } else {
            while isDigit(j) { j += 1 }
        }
        if j < n && b[j] == UInt8(ascii: ".") {
            j += 1
            guard isDigit(j) else {
                if j >= n { throw fail(.unexpectedEnd, at: j, "input ended after '.': expected a digit") }
                throw fail(.invalidNumber, at: j, "expected a digit after the decimal point, found \(describe(b[j]))")
            }
            while isDigit(j) { j += 1 }
        }
        if j < n && (b[j] == UInt8(ascii: "e") || b[j] == UInt8(ascii: "E")) {
            j += 1
            if j < n && (b[j] == UInt8(ascii: "+") || b[j] == UInt8(ascii: "-")) { j += 1 }
            guard isDigit(j) else {
                if j >= n { throw fail(.unexpectedEnd, at: j, "input ended inside an exponent: expected a digit") }
                throw fail(.invalidNumber, at: j, "expected a digit in the exponent, found \(describe(b[j]))")
            }
            while isDigit(j) { j += 1 }
        }
        guard j - start <= limits.maxNumberBytes else {
            throw fail(.numberTooLong, at: start, "number of \(j - start) characters is over the limit of \(limits.maxNumberBytes)")
        }
        i = j
    }
}
