/// A strict RFC 8259 parser over bytes.
///
/// - Accepts exactly the RFC 8259 grammar: no comments, no trailing commas, no
///   `NaN`/`Infinity`, no byte-order mark, no leading zeros, only the four JSON
///   whitespace bytes.
/// - Validates UTF-8 (Unicode table 3-7: no overlongs, no surrogates, nothing above
///   U+10FFFF) and escapes; `\u` surrogate halves must form a pair.
/// - Keeps object member order and duplicates; reports duplicates with both offsets.
/// - Keeps numbers as lexemes (``JSONNumber``).
/// - Enforces ``JSONLimits`` before buffering: input size up front, strings and
///   numbers after scanning and before copying, depth and member counts as it goes.
/// - Throws ``JSONError`` with a byte offset, a line and column and a reason.
///
/// The parser is a value type with no state between calls; it is safe to share.
public struct JSONParser: Sendable {
    /// The limits in force.
    public var limits: JSONLimits

    /// Creates a parser with the given limits (documented defaults otherwise).
    public init(limits: JSONLimits = .default) {
        self.limits = limits
    }

    /// Parses exactly one JSON text (optional surrounding whitespace).
    public func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONError) -> JSONDocument {
        var state = ParserState(bytes: bytes, limits: limits)
        return try state.parseDocument()
    }

    /// Parses exactly one JSON text held in an array.
    public func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONDocument {
        let result: Result<JSONDocument, JSONError> = bytes.withUnsafeBytes { buf in
            do throws(JSONError) { return .success(try parse(buf)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Parses exactly one JSON text from any byte collection (copied once if not contiguous).
    public func parse<Bytes: Collection>(bytes: Bytes) throws(JSONError) -> JSONDocument where Bytes.Element == UInt8 {
        let contiguous: Result<JSONDocument, JSONError>? = bytes.withContiguousStorageIfAvailable { buf in
            do throws(JSONError) { return .success(try parse(UnsafeRawBufferPointer(buf))) } catch {
                return .failure(error)
            }
        }
        if let contiguous { return try contiguous.get() }
        return try parse(Array(bytes))
    }

    /// Parses exactly one JSON text from a string's UTF-8.
    public func parse(_ text: String) throws(JSONError) -> JSONDocument {
        try parse(Array(text.utf8))
    }

    /// Parses and returns just the value (duplicates are dropped from the result but
    /// still kept in the value's objects).
    public func value(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        try parse(bytes).value
    }
}

/// The cursor and bookkeeping of one parse.
struct ParserState {
    let b: UnsafeRawBufferPointer
    let limits: JSONLimits
    var i = 0
    var duplicates: [DuplicateKey] = []

    init(bytes: UnsafeRawBufferPointer, limits: JSONLimits) {
        self.b = bytes
        self.limits = limits
    }

    func fail(_ code: JSONError.Code, at offset: Int, _ reason: String) -> JSONError {
        let loc = SourceLocation(offset: offset, in: b)
        return JSONError(code: code, offset: offset, line: loc.line, column: loc.column, reason: reason)
    }

    mutating func parseDocument() throws(JSONError) -> JSONDocument {
        guard b.count <= limits.maxInputBytes else {
            throw fail(.inputTooLarge, at: limits.maxInputBytes,
                       "input is \(b.count) bytes, over the limit of \(limits.maxInputBytes) bytes")
        }
        skipWhitespace()
        guard i < b.count else {
            throw fail(.empty, at: i, b.isEmpty ? "empty input: expected a JSON value" : "only whitespace: expected a JSON value")
        }
        let value = try parseValue(depth: 0)
        skipWhitespace()
        if i < b.count {
            throw fail(.trailingData, at: i, "unexpected \(describe(b[i])) after the JSON value: a JSON text holds exactly one value\(hint(at: i))")
        }
        return JSONDocument(value: value, duplicateKeys: duplicates)
    }

    @inline(__always)
    mutating func skipWhitespace() {
        JSONBytes.skipWhitespace(b, &i)
    }

    /// Levels read by recursive descent; deeper values go to ``parseValueIteratively(depth:)``.
    /// 24 levels cost about 110 KB of stack in a debug build, far less in release.
    static let recursionDepth = 24

    mutating func parseValue(depth: Int) throws(JSONError) -> JSONValue {
        if depth >= Self.recursionDepth { return try parseValueIteratively(depth: depth) }
        guard i < b.count else { throw fail(.unexpectedEnd, at: i, "input ended where a value was expected") }
        switch b[i] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default:
            throw fail(.unexpectedByte, at: i, "unexpected \(describe(b[i])): expected a value (object, array, string, number, true, false or null)\(hint(at: i))")
        }
    }

    /// Reads `"key":` of the next member of the object opened at `open`, and the whitespace
    /// after it, leaving `i` at the member's value; returns the key and its offset.
    @inline(__always)
    mutating func memberKey(inObjectOpenedAt open: Int) throws(JSONError) -> (String, Int) {
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
        let key = try parseString()
        skipWhitespace()
        guard i < b.count else {
            throw fail(.unexpectedEnd, at: i, "input ended after the key \"\(key)\": expected ':'")
        }
        guard b[i] == UInt8(ascii: ":") else {
            throw fail(.unexpectedByte, at: i, "unexpected \(describe(b[i])): expected ':' after the key \"\(key)\"")
        }
        i += 1
        skipWhitespace()
        return (key, keyOffset)
    }

    mutating func literal(_ word: String) throws(JSONError) {
        let start = i
        for w in word.utf8 {
            guard i < b.count else {
                throw fail(.unexpectedEnd, at: i, "input ended inside the literal '\(word)'")
            }
            guard b[i] == w else {
                throw fail(.unexpectedByte, at: i, "unexpected \(describe(b[i])) in what started as '\(word)' at byte \(start)")
            }
            i += 1
        }
    }

    mutating func parseArray(depth: Int) throws(JSONError) -> JSONValue {
        let open = i
        guard depth <= limits.maxDepth else {
            throw fail(.tooDeep, at: open, "nesting deeper than the limit of \(limits.maxDepth) levels")
        }
        i += 1
        skipWhitespace()
        var elements: [JSONValue] = []
        if i < b.count && b[i] == UInt8(ascii: "]") {
            i += 1
            return .array(elements)
        }
        // Envelope arrays are short: one allocation instead of growing 1-2-4.
        elements.reserveCapacity(4)
        while true {
            skipWhitespace()
            if i < b.count && b[i] == UInt8(ascii: "]") && !elements.isEmpty {
                throw fail(.unexpectedByte, at: i, "trailing comma before ']' (array opened at byte \(open))")
            }
            elements.append(try parseValue(depth: depth))
            guard elements.count <= limits.maxMembers else {
                throw fail(.tooManyMembers, at: open, "array has more than \(limits.maxMembers) elements")
            }
            skipWhitespace()
            guard i < b.count else {
                throw fail(.unexpectedEnd, at: i, "input ended inside the array opened at byte \(open)")
            }
            let c = b[i]
            i += 1
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "]") { return .array(elements) }
            throw fail(.unexpectedByte, at: i - 1, "unexpected \(describe(c)): expected ',' or ']' in the array opened at byte \(open)")
        }
    }

    mutating func parseObject(depth: Int) throws(JSONError) -> JSONValue {
        let open = i
        guard depth <= limits.maxDepth else {
            throw fail(.tooDeep, at: open, "nesting deeper than the limit of \(limits.maxDepth) levels")
        }
        i += 1
        skipWhitespace()
        var members: [JSONObject.Member] = []
        if i < b.count && b[i] == UInt8(ascii: "}") {
            i += 1
            return .object(JSONObject(members))
        }
        // Envelope objects have a handful of members: one allocation instead of 1-2-4-8.
        members.reserveCapacity(8)
        while true {
            let (key, keyOffset) = try memberKey(inObjectOpenedAt: open)
            let valueOffset = i
            let value = try parseValue(depth: depth)
            members.append(JSONObject.Member(key: key, value: value, keyOffset: keyOffset, valueOffset: valueOffset))
            guard members.count <= limits.maxMembers else {
                throw fail(.tooManyMembers, at: open, "object has more than \(limits.maxMembers) members")
            }
            skipWhitespace()
            guard i < b.count else {
                throw fail(.unexpectedEnd, at: i, "input ended inside the object opened at byte \(open)")
            }
            let c = b[i]
            i += 1
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "}") {
                if members.count > 1 { findDuplicates(members, depth: depth) }
                return .object(JSONObject(members))
            }
            throw fail(.unexpectedByte, at: i - 1, "unexpected \(describe(c)): expected ',' or '}' in the object opened at byte \(open)")
        }
    }
}
