extension ParserState {
    /// Parses a number at `i` following RFC 8259 §6 exactly; keeps the lexeme. The grammar,
    /// the errors and the length limit are ``skipNumber()``'s (shared with
    /// ``JSONValidator``, so both accept and reject the same numbers).
    mutating func parseNumber() throws(JSONError) -> JSONNumber {
        let start = i
        try skipNumber()
        return JSONNumber(uncheckedLexeme: String(decoding: UnsafeRawBufferPointer(rebasing: b[start..<i]), as: UTF8.self))
    }
}
