/// Checks that bytes are one JSON text exactly as ``JSONParser`` would accept them,
/// without building a value: no strings, numbers, arrays or objects are allocated.
///
/// - Same acceptance as ``JSONParser`` with the same ``JSONLimits``: RFC 8259 grammar,
///   UTF-8 and escape checks, input size, depth, string, number and member limits.
/// - Duplicate member names are accepted, as the parser accepts them; the validator
///   does not look for them (use ``JSONParser`` to get ``DuplicateKey`` reports).
/// - A rejected input throws the same ``JSONError`` as ``JSONParser/parse(_:)-(UnsafeRawBufferPointer)``
///   (code, offset, line, column and reason), checked differentially in the tests.
///
/// Use it where only "is this valid JSON?" matters, e.g. deciding whether a captured
/// message can be stored verbatim (the recorder): it is several times faster than
/// parsing. Like the parser it is a `Sendable` value with no state between calls.
public struct JSONValidator: Sendable {
    /// The limits in force.
    public var limits: JSONLimits

    /// Creates a validator with the given limits (documented defaults otherwise).
    public init(limits: JSONLimits = .default) {
        self.limits = limits
    }

    /// Throws the error ``JSONParser`` would throw for `bytes`; returns when they are
    /// exactly one valid JSON text (optional surrounding whitespace).
    public func validate(_ bytes: UnsafeRawBufferPointer) throws(JSONError) {
        // The quick loop answers "valid" for the usual message; anything else, and every
        // error, is the exact scan's to decide (``ParserState/quickValid(_:limits:)``).
        if ParserState.quickValid(bytes, limits: limits) { return }
        var state = ParserState(bytes: bytes, limits: limits)
        try state.validateDocument()
    }

    /// Validates one JSON text held in an array.
    public func validate(_ bytes: [UInt8]) throws(JSONError) {
        let result: Result<Void, JSONError> = bytes.withUnsafeBytes { buf in
            do throws(JSONError) { return .success(try validate(buf)) } catch { return .failure(error) }
        }
        try result.get()
    }

    /// Whether `bytes` are exactly one valid JSON text (the error, if any, is dropped).
    public func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        do {
            try validate(bytes)
            return true
        } catch {
            return false
        }
    }

    /// Whether the bytes of an array are exactly one valid JSON text.
    public func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { isValid($0) }
    }
}
