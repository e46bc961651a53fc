#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One member of an object as ``JSONMemberScanner`` found it: byte ranges into the
/// scanned input, nothing decoded.
public struct JSONMemberSpan: Sendable, Hashable {
    /// The key's bytes between its quotes (never escaped: a scan that accepts the input
    /// met no escaped key).
    public var key: Range<Int>
    /// The value's bytes (a string's include its quotes).
    public var value: Range<Int>
    /// The index in ``JSONMemberScanner/members`` of the member whose object value holds
    /// this one; -1 for a member of the top-level object.
    public var parent: Int

    /// Creates a span.
    public init(key: Range<Int>, value: Range<Int>, parent: Int) {
        self.key = key
        self.value = value
        self.parent = parent
    }
}

/// One strict pass over a JSON text that says whether ``JSONParser`` would accept it
/// with no duplicate member names anywhere, and records where the members of the
/// top-level object, and of the objects it holds up to ``recordedDepth`` levels down
/// (through object members, not arrays), are. Nothing is decoded or allocated beyond
/// the two reused arrays of the scanner.
///
/// - `scan` answers true only when the parser would accept the bytes with the same
///   ``JSONLimits`` and report no ``DuplicateKey``: the grammar, UTF-8, escapes and
///   limits are the validator's own checks (``JSONValidator``), step for step.
/// - It answers false, and the caller uses ``JSONParser``, when the bytes are invalid,
///   and also where it does not decide: a key with an escape (the parser compares decoded
///   keys), an object of more than ``maxCheckedMembers`` members (duplicates are found
///   by comparing each key with the earlier ones), nesting past
///   ``maxRecursionDepth`` (the scan recurses; the parser does not past 24 levels).
///
/// So a true answer is a guarantee and a false one a "look closer". Used by
/// BridgeProtocol's `EnvelopeScanner` (the analyzer's envelope fast path); the tests hold
/// it to the parser on JSONTestSuite and mutated envelopes.
public struct JSONMemberScanner: Sendable {
    /// The limits in force (the parser's).
    public var limits: JSONLimits
    /// Levels of objects whose members are recorded: 1 records the top-level object's
    /// members, 2 also the members of objects they hold, and so on.
    public var recordedDepth: Int
    /// The members found by the last successful ``scan(_:)``, in input order, a parent
    /// before its children.
    public private(set) var members: [JSONMemberSpan] = []
    /// Keys of the objects open during the scan, for the duplicate check: the first
    /// ``keyCount`` entries (the array is overwritten, never shrunk: removing from an
    /// array goes through its generic `replaceSubrange`, once per object).
    var keys: [Range<Int>] = []
    /// The keys in use in ``keys``.
    var keyCount = 0

    /// Members per object compared for duplicates; a larger object makes ``scan(_:)``
    /// answer false. 64.
    public static let maxCheckedMembers = 64
    /// Nesting the scan follows; deeper input makes ``scan(_:)`` answer false. 24 (the
    /// parser's recursive levels).
    public static let maxRecursionDepth = 24

    /// Creates a scanner.
    public init(limits: JSONLimits = .default, recordedDepth: Int = 1) {
        self.limits = limits
        self.recordedDepth = recordedDepth
        members.reserveCapacity(16)
        keys.reserveCapacity(16)
    }

    /// Scans `bytes`: true when they are one JSON text the parser accepts without
    /// duplicate keys (``members`` then says where the recorded members are); false
    /// otherwise (``members`` is then empty).
    public mutating func scan(_ bytes: UnsafeRawBufferPointer) -> Bool {
        members.removeAll(keepingCapacity: true)
        keyCount = 0
        var state = ParserState(bytes: bytes, limits: limits)
        do {
            try state.scanDocument(&self)
            return true
        } catch {
            members.removeAll(keepingCapacity: true)
            return false
        }
    }

    mutating func record(_ span: JSONMemberSpan) -> Int {
        members.append(span)
        return members.count - 1
    }

    mutating func setValue(_ index: Int, _ range: Range<Int>) {
        members[index].value = range
    }

    /// Adds the raw key `key` of `b` to the keys of the object whose keys start at
    /// `from`: false when it is already among them (keys without escapes: their bytes
    /// are their decoded UTF-8). A mutating method: the list is read in place, where
    /// passing it from the scan retained and released it per key.
    mutating func addKey(_ key: Range<Int>, of b: UnsafeRawBufferPointer, from: Int) -> Bool {
        let base = b.baseAddress!
        var k = from
        while k < keyCount {
            let other = keys[k]
            if other.count == key.count && memcmp(base + other.lowerBound, base + key.lowerBound, key.count) == 0 { return false }
            k += 1
        }
        if keyCount < keys.count { keys[keyCount] = key } else { keys.append(key) }
        keyCount += 1
        return true
    }
}
