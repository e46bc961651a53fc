import BridgeJSON

/// The layout of ``PrettyJSON`` written piece by piece, for a document too large to
/// build whole (`analyze --format json`): the caller opens objects and arrays, writes
/// members and elements (each a small ``JSONValue``, or streamed in turn), and hands
/// ``bytes`` on whenever it likes. An object or array written this way must have at
/// least one member or element that is not a scalar; ``PrettyJSON`` would put an
/// array of scalars on one line.
struct PrettyJSONStream {
    /// Bytes written and not yet handed on.
    var bytes: [UInt8] = []

    /// `{` or `[` opening a block.
    mutating func open(_ bracket: Unicode.Scalar) {
        bytes.append(UInt8(ascii: bracket))
        bytes.append(UInt8(ascii: "\n"))
    }

    /// `}` or `]` closing a block whose own line is at `indent`.
    mutating func close(_ bracket: Unicode.Scalar, indent: Int) {
        pad(indent)
        bytes.append(UInt8(ascii: bracket))
    }

    /// The start of a member of an object at `indent`: its key.
    mutating func key(_ key: String, indent: Int) {
        pad(indent + 2)
        JSONWriter.writeString(key, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
    }

    /// The start of an element of an array at `indent`.
    mutating func element(indent: Int) { pad(indent + 2) }

    /// A whole value whose first line is already indented to `indent`.
    mutating func value(_ value: JSONValue, indent: Int) {
        PrettyJSON.write(value, indent: indent, into: &bytes)
    }

    /// A whole member of an object at `indent`.
    mutating func member(_ key: String, _ value: JSONValue, indent: Int, last: Bool = false) {
        self.key(key, indent: indent)
        self.value(value, indent: indent + 2)
        end(last: last)
    }

    /// What follows a member or element: a comma unless it is the last.
    mutating func end(last: Bool) {
        if !last { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Plain bytes (`[]`, the final newline).
    mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `n` spaces.
    mutating func pad(_ n: Int) {
        // A slice of spaces is one copy; `repeatElement` went element by element.
        if n <= Self.spaces.count {
            bytes.append(contentsOf: Self.spaces[..<n])
        } else {
            bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: n))
        }
    }

    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 64)
}
