extension ParserState {
    /// Parses a number at `i` following RFC 8259 §6 exactly; keeps the lexeme.
    mutating func parseNumber() throws(JSONError) -> JSONNumber {
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
        return JSONNumber(uncheckedLexeme: String(decoding: UnsafeRawBufferPointer(rebasing: b[start..<j]), as: UTF8.self))
    }
}
