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
        while i < b.count {
            let c = b[i]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { i += 1 } else { return }
        }
    }

    /// Reads one value starting at `i` (the document's, or one nested `depth` levels down).
    ///
    /// Iterative: open arrays and objects live on an explicit stack (``OpenContainer``),
    /// so nesting costs heap, never call stack. A recursive descent needs one call frame
    /// per level, which in a debug build is several KB: 1,000 levels overflowed the
    /// 4-8 MB stack of a thread of the concurrency pool (issue seen in CI).
    mutating func parseValue(depth base: Int) throws(JSONError) -> JSONValue {
        var stack: [OpenContainer] = []
        while true {
            // 1. A value starts at `i`: a scalar is read whole; a non-empty container is
            //    pushed and the loop comes back here for its first element.
            var value: JSONValue
            guard i < b.count else { throw fail(.unexpectedEnd, at: i, "input ended where a value was expected") }
            switch b[i] {
            case UInt8(ascii: "["):
                let open = i
                try checkDepth(base + stack.count + 1, open: open)
                i += 1
                skipWhitespace()
                if i < b.count && b[i] == UInt8(ascii: "]") {
                    i += 1
                    value = .array([])
                } else {
                    stack.append(OpenContainer(array: open))
                    continue
                }
            case UInt8(ascii: "{"):
                let open = i
                try checkDepth(base + stack.count + 1, open: open)
                i += 1
                skipWhitespace()
                if i < b.count && b[i] == UInt8(ascii: "}") {
                    i += 1
                    value = .object(JSONObject([]))
                } else {
                    var container = OpenContainer(object: open)
                    try readMemberKey(into: &container)
                    stack.append(container)
                    continue
                }
            case UInt8(ascii: "\""): value = .string(try parseString())
            case UInt8(ascii: "t"): try literal("true"); value = .bool(true)
            case UInt8(ascii: "f"): try literal("false"); value = .bool(false)
            case UInt8(ascii: "n"): try literal("null"); value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = .number(try parseNumber())
            default:
                throw fail(.unexpectedByte, at: i, "unexpected \(describe(b[i])): expected a value (object, array, string, number, true, false or null)\(hint(at: i))")
            }
            // 2. A value is complete: it goes into the innermost open container; a
            //    container that ends here is itself complete and goes one level up.
            attach: while true {
                guard !stack.isEmpty else { return value }
                let top = stack.count - 1
                let open = stack[top].open
                if stack[top].isObject {
                    let member = JSONObject.Member(key: stack[top].key, value: value,
                                                   keyOffset: stack[top].keyOffset, valueOffset: stack[top].valueOffset)
                    stack[top].members.append(member)
                    guard stack[top].members.count <= limits.maxMembers else {
                        throw fail(.tooManyMembers, at: open, "object has more than \(limits.maxMembers) members")
                    }
                    let c = try separator(in: "object", opened: open)
                    if c == UInt8(ascii: ",") {
                        try readMemberKey(into: &stack[top])
                        break attach
                    }
                    guard c == UInt8(ascii: "}") else {
                        throw fail(.unexpectedByte, at: i - 1, "unexpected \(describe(c)): expected ',' or '}' in the object opened at byte \(open)")
                    }
                    let done = stack.removeLast()
                    if done.members.count > 1 { findDuplicates(done.members, depth: base + stack.count + 1) }
                    value = .object(JSONObject(done.members))
                } else {
                    stack[top].elements.append(value)
                    guard stack[top].elements.count <= limits.maxMembers else {
                        throw fail(.tooManyMembers, at: open, "array has more than \(limits.maxMembers) elements")
                    }
                    let c = try separator(in: "array", opened: open)
                    if c == UInt8(ascii: ",") {
                        skipWhitespace()
                        if i < b.count && b[i] == UInt8(ascii: "]") {
                            throw fail(.unexpectedByte, at: i, "trailing comma before ']' (array opened at byte \(open))")
                        }
                        break attach
                    }
                    guard c == UInt8(ascii: "]") else {
                        throw fail(.unexpectedByte, at: i - 1, "unexpected \(describe(c)): expected ',' or ']' in the array opened at byte \(open)")
                    }
                    value = .array(stack.removeLast().elements)
                }
            }
        }
    }

    /// Throws `tooDeep` when a container opened at `open` would be at `depth`.
    func checkDepth(_ depth: Int, open: Int) throws(JSONError) {
        guard depth <= limits.maxDepth else {
            throw fail(.tooDeep, at: open, "nesting deeper than the limit of \(limits.maxDepth) levels")
        }
    }

    /// After a container's element: skips whitespace and consumes the next byte (`,` or
    /// the closing bracket, checked by the caller).
    mutating func separator(in kind: StaticString, opened open: Int) throws(JSONError) -> UInt8 {
        skipWhitespace()
        guard i < b.count else {
            throw fail(.unexpectedEnd, at: i, "input ended inside the \(kind) opened at byte \(open)")
        }
        i += 1
        return b[i - 1]
    }

    /// Reads `"key":` and the whitespace after it, leaving `i` at the member's value.
    mutating func readMemberKey(into container: inout OpenContainer) throws(JSONError) {
        let open = container.open
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
        container.key = key
        container.keyOffset = keyOffset
        container.valueOffset = i
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
}
