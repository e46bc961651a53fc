/// The strict JSON scanner of the field taps' redaction (docs/TAP.md §2, step 1): it
/// validates a message and records the byte ranges of the values redaction replaces,
/// without building values. The Java and JavaScript taps implement the same steps.
///
/// Recursive descent, bounded by ``maxDepth`` (64 levels, the top level is 1), so its
/// stack use is bounded too.
struct TapScanner {
    /// A value to replace: its byte range and the content its digest covers.
    struct Replacement {
        /// First byte of the value.
        var start: Int
        /// One past its last byte.
        var end: Int
        /// The digest's content (docs/TAP.md §2, step 4).
        var content: [UInt8]
    }

    /// Why a text is not valid (the taps do not report it; tests read it).
    struct Invalid: Error {
        /// The byte offset.
        var offset: Int
    }

    /// Where the value being scanned sits.
    private enum Place { case top, payloadObject, data, other }

    /// The deepest nesting accepted.
    static let maxDepth = 64

    let b: UnsafeBufferPointer<UInt8>
    private let fields: Set<[UInt8]>
    var i = 0
    private(set) var replacements: [Replacement] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>, fields: Set<[UInt8]>) {
        self.b = bytes
        self.fields = fields
    }

    /// Scans the whole text; throws at the first byte that breaks the grammar.
    mutating func scan() throws(Invalid) {
        skipWhitespace()
        try value(place: .top, depth: 1)
        skipWhitespace()
        guard i == b.count else { throw Invalid(offset: i) }
    }

    private mutating func skipWhitespace() {
        while i < b.count {
            switch b[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
    }

    private mutating func value(place: Place, depth: Int) throws(Invalid) {
        guard i < b.count else { throw Invalid(offset: i) }
        switch b[i] {
        case UInt8(ascii: "{"): try object(place: place, depth: depth)
        case UInt8(ascii: "["): try array(place: place, depth: depth)
        case UInt8(ascii: "\""): _ = try string(decode: false)
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: try number()
        }
    }

    private mutating func object(place: Place, depth: Int) throws(Invalid) {
        guard depth <= Self.maxDepth else { throw Invalid(offset: i) }
        i += 1
        skipWhitespace()
        if i < b.count && b[i] == UInt8(ascii: "}") { i += 1; return }
        while true {
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw Invalid(offset: i) }
            let key = try string(decode: true) ?? []
            skipWhitespace()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { throw Invalid(offset: i) }
            i += 1
            skipWhitespace()
            let start = i
            switch place {
            case .top:
                try value(place: key == Self.payload ? .payloadObject : .other, depth: depth + 1)
            case .payloadObject:
                try value(place: key == Self.data ? .data : .other, depth: depth + 1)
            case .data:
                if fields.contains(key) && !isNull(at: start) {
                    try value(place: .other, depth: depth + 1)
                    try replace(start, i)
                } else {
                    try value(place: .data, depth: depth + 1)
                }
            case .other:
                try value(place: .other, depth: depth + 1)
            }
            skipWhitespace()
            guard i < b.count else { throw Invalid(offset: i) }
            if b[i] == UInt8(ascii: ",") { i += 1; skipWhitespace(); continue }
            guard b[i] == UInt8(ascii: "}") else { throw Invalid(offset: i) }
            i += 1
            return
        }
    }

    private mutating func array(place: Place, depth: Int) throws(Invalid) {
        guard depth <= Self.maxDepth else { throw Invalid(offset: i) }
        i += 1
        skipWhitespace()
        if i < b.count && b[i] == UInt8(ascii: "]") { i += 1; return }
        // Objects inside arrays inside `data` are walked too; anything else is not.
        let inner: Place = place == .data ? .data : .other
        while true {
            try value(place: inner, depth: depth + 1)
            skipWhitespace()
            guard i < b.count else { throw Invalid(offset: i) }
            if b[i] == UInt8(ascii: ",") { i += 1; skipWhitespace(); continue }
            guard b[i] == UInt8(ascii: "]") else { throw Invalid(offset: i) }
            i += 1
            return
        }
    }

    private func isNull(at j: Int) -> Bool {
        j + 4 <= b.count && b[j] == UInt8(ascii: "n") && b[j + 1] == UInt8(ascii: "u")
            && b[j + 2] == UInt8(ascii: "l") && b[j + 3] == UInt8(ascii: "l")
    }

    /// Records the value in `start..<end` for replacement unless it is already a marker.
    private mutating func replace(_ start: Int, _ end: Int) throws(Invalid) {
        let content: [UInt8]
        if b[start] == UInt8(ascii: "\"") {
            var j = start
            swap(&i, &j)
            defer { swap(&i, &j) }
            content = try string(decode: true) ?? []
        } else {
            let compact = Self.compact(UnsafeBufferPointer(rebasing: b[start..<end]))
            if TapMarker.isMarker(compact) { return }
            content = compact
        }
        replacements.append(Replacement(start: start, end: end, content: content))
    }

    /// `bytes` without whitespace outside strings (the scanner has validated them).
    static func compact(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var inString = false, escaped = false
        for c in bytes {
            if inString {
                if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false }
                out.append(c)
            } else {
                switch c {
                case 0x20, 0x09, 0x0A, 0x0D: continue
                case UInt8(ascii: "\""): inString = true; out.append(c)
                default: out.append(c)
                }
            }
        }
        return out
    }

    private static let payload = Array("payload".utf8)
    private static let data = Array("data".utf8)

    private mutating func literal(_ word: StaticString) throws(Invalid) {
        let n = word.utf8CodeUnitCount
        guard i + n <= b.count else { throw Invalid(offset: i) }
        let w = UnsafeBufferPointer(start: word.utf8Start, count: n)
        for k in 0..<n where b[i + k] != w[k] { throw Invalid(offset: i + k) }
        i += n
    }

    private mutating func number() throws(Invalid) {
        func digit(_ j: Int) -> Bool { j < b.count && b[j] >= UInt8(ascii: "0") && b[j] <= UInt8(ascii: "9") }
        if i < b.count && b[i] == UInt8(ascii: "-") { i += 1 }
        guard digit(i) else { throw Invalid(offset: i) }
        if b[i] == UInt8(ascii: "0") { i += 1 } else { while digit(i) { i += 1 } }
        if i < b.count && b[i] == UInt8(ascii: ".") {
            i += 1
            guard digit(i) else { throw Invalid(offset: i) }
            while digit(i) { i += 1 }
        }
        if i < b.count && (b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E")) {
            i += 1
            if i < b.count && (b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-")) { i += 1 }
            guard digit(i) else { throw Invalid(offset: i) }
            while digit(i) { i += 1 }
        }
    }
}
