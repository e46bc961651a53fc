/// A JSON value as parsed by ``JSONParser``: RFC 8259's six kinds, with objects that
/// keep member order and duplicate keys, and numbers that keep their exact lexeme.
///
/// Equality is structural and ignores source offsets: two values parsed from
/// different bytes compare equal when they hold the same members in the same order
/// with equal values and numbers with the same lexeme.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as its exact lexeme (see ``JSONNumber``).
    case number(JSONNumber)
    /// A string, already unescaped and validated as Unicode scalars.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object, members in source order, duplicates kept.
    case object(JSONObject)
}

extension JSONValue {
    /// A short, human name for the kind of value ("object", "string", ...), for messages.
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The object, when this is an object.
    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The array, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The Boolean, when this is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The number, when this is a number.
    public var numberValue: JSONNumber? {
        if case .number(let n) = self { return n }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value of the first member named `key`, when this is an object.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// Builds a number value from an integer.
    public static func integer(_ value: Int64) -> JSONValue {
        .number(JSONNumber(value))
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// A string literal is a JSON string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A Boolean literal is `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal is a number with that decimal lexeme.
    public init(integerLiteral value: Int64) { self = .number(JSONNumber(value)) }
    /// `nil` is `null`.
    public init(nilLiteral: ()) { self = .null }
    /// An array literal is a JSON array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A dictionary literal is an object with members in literal order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { JSONObject.Member(key: $0.0, value: $0.1) }))
    }
}
