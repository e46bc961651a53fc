import BridgeJSON
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The analyzer's fast path to an envelope: one strict pass (``JSONMemberScanner``:
/// the parser's exact acceptance, duplicate keys checked) that finds the envelope's
/// members, then reads only the fields the session rules use. No `JSONValue` is built.
///
/// It answers only for the plain case: a message on which ``EnvelopeDecoder`` reports no
/// finding at all. Anything else (invalid JSON, a missing or unknown member, a wrong
/// type, an unknown status or error code, a version other than `1.0`, a timestamp that
/// looks like seconds, a string with an escape where a value is read, a wrong direction)
/// answers nil, and the caller decodes the message with ``EnvelopeDecoder``, which says
/// what is wrong. So for every message either the scanner declines or the decoder
/// agrees with it and finds nothing (held by a differential test over every fixture,
/// planted session and a generated one, and mutated envelopes).
///
/// Not thread-safe: one scanner per task (it reuses its member buffers and interns
/// actions).
public struct EnvelopeScanner: Sendable {
    /// The JSON limits (the decoder's).
    public let limits: JSONLimits
    var members: JSONMemberScanner
    /// Interned actions: their bytes and their shared `String`.
    var actions: [(bytes: [UInt8], value: String)] = []
    /// Per interned action, its length, its first eight bytes (zero-padded) and its index
    /// in ``Action/known``: the search compares these plain numbers (iterating
    /// ``actions`` itself retained and released an array and a string per entry).
    var actionHeads: [(count: Int, head: UInt64, known: Int?)] = []

    /// The strings of ``Action/known``, held here: read per message, a static array checks
    /// its `swift_once` on each use.
    let knownActionValues: [String] = Action.known.map(\.rawValue)

    /// Actions kept in the table; past this, a new action's `String` is made from its
    /// bytes each time it is asked for. 64 (a scan holds the number in a byte).
    public static let maxInternedActions = 64
    static let secondsThreshold: Int64 = 100_000_000_000

    /// Creates a scanner with the decoder's limits.
    public init(limits: JSONLimits = .default) {
        self.limits = limits
        members = JSONMemberScanner(limits: limits, recordedDepth: 3)
    }

    /// The fields of `bytes` when ``EnvelopeDecoder/decode(_:direction:)`` would return an
    /// envelope with no finding; nil otherwise (use the decoder).
    public mutating func scan(_ b: UnsafeRawBufferPointer, direction: Direction?) -> ScannedEnvelope? {
        // The envelope's members where they stand first (``scanDirect(_:direction:)``);
        // the general scan decides whatever that walk does not take.
        if let direct = scanDirect(b, direction: direction) { return direct }
        return scanGeneral(b, direction: direction)
    }

    /// The general scan: every member of the first levels recorded
    /// (``JSONMemberScanner``), then the envelope read from the record.
    package mutating func scanGeneral(_ b: UnsafeRawBufferPointer, direction: Direction?) -> ScannedEnvelope? {
        guard b.count > 0, b.count <= limits.maxInputBytes, members.scan(b) else { return nil }
        var k = 0
        while k < b.count, b[k] != UInt8(ascii: "{") {
            guard b[k] == 0x20 || b[k] == 0x0A || b[k] == 0x0D || b[k] == 0x09 else { return nil }
            k += 1
        }
        var version = false, id: Range<Int>?, type: MessageType?, timestamp: Int64?, payload = -1
        let spans = members.members
        for (n, m) in spans.enumerated() where m.parent == -1 {
            if Self.key(m, b, "version") {
                guard Self.equals(b, m.value, "\"1.0\"") else { return nil }
                version = true
            } else if Self.key(m, b, "correlationId") {
                guard let r = Self.plainString(b, m.value), !r.isEmpty else { return nil }
                id = r
            } else if Self.key(m, b, "type") {
                if Self.equals(b, m.value, "\"request\"") { type = .request }
                else if Self.equals(b, m.value, "\"response\"") { type = .response }
                else if Self.equals(b, m.value, "\"event\"") { type = .event }
                else { return nil }
            } else if Self.key(m, b, "timestamp") {
                guard let t = Self.milliseconds(b, m.value), t >= Self.secondsThreshold else { return nil }
                timestamp = t
            } else if Self.key(m, b, "payload") {
                guard b[m.value.lowerBound] == UInt8(ascii: "{") else { return nil }
                payload = n
            } else {
                return nil
            }
        }
        guard version, let id, let type, let timestamp, payload >= 0, b.count < Int(UInt32.max) else { return nil }
        if type == .request && direction == .hostToWeb || type == .response && direction == .webToHost { return nil }
        var out = ScannedEnvelope(type: type, correlationId: id, timestamp: timestamp)
        guard readPayload(b, spans, payload, into: &out) else { return nil }
        return out
    }

    private mutating func readPayload(_ b: UnsafeRawBufferPointer, _ spans: [JSONMemberSpan], _ payload: Int,
                                      into out: inout ScannedEnvelope) -> Bool {
        var action = false, error = -1
        for (n, m) in spans.enumerated() where m.parent == payload {
            if Self.key(m, b, "action") {
                guard let r = Self.plainString(b, m.value), let a = intern(b, r) else { return false }
                out.setAction(bytes: r, interned: a.interned, known: a.known)
                action = true
            } else if Self.key(m, b, "data") {
                switch b[m.value.lowerBound] {
                case UInt8(ascii: "{"): out.data = m.value
                case UInt8(ascii: "n"): out.data = nil  // null data is no data
                default: return false
                }
            } else if Self.key(m, b, "status") {
                guard out.type == .response, let s = Self.status(b, m.value) else { return false }
                out.status = s
            } else if Self.key(m, b, "error") {
                guard b[m.value.lowerBound] == UInt8(ascii: "{") else { return false }
                error = n
            } else {
                return false
            }
        }
        guard action else { return false }
        if out.type == .response {
            guard let status = out.status else { return false }
            if error >= 0 {
                return status != .success && readError(b, spans, error, into: &out)
            }
            return !status.requiresError
        }
        return error < 0
    }

    private func readError(_ b: UnsafeRawBufferPointer, _ spans: [JSONMemberSpan], _ error: Int,
                           into out: inout ScannedEnvelope) -> Bool {
        var message = false
        for m in spans where m.parent == error {
            if Self.key(m, b, "code") {
                guard let r = Self.plainString(b, m.value),
                      let code = ErrorCode.known.first(where: { Self.equals(b, r, $0.rawValue) }) else { return false }
                out.errorCode = code
            } else if Self.key(m, b, "message") {
                guard b[m.value.lowerBound] == UInt8(ascii: "\"") else { return false }
                message = true
            } else if Self.key(m, b, "recoverable") {
                switch b[m.value.lowerBound] {
                case UInt8(ascii: "t"): out.errorRecoverable = true
                case UInt8(ascii: "f"): out.errorRecoverable = false
                default: return false
                }
            } else {
                return false
            }
        }
        return message && out.errorCode != nil && out.errorRecoverable != nil
    }

    /// The action of `scanned`, a scan of `b` by this scanner (or one it reinterned:
    /// ``reintern(_:in:)``): a known action's literal, else the table's `String` (the same
    /// for every message with that action), else (the table was full) made from the bytes.
    /// `mutating` though it changes nothing: called on a scanner inside another value,
    /// a non-mutating method was called on a copy of the whole scanner, per message.
    public mutating func action(of scanned: ScannedEnvelope, in b: UnsafeRawBufferPointer) -> String {
        if let k = scanned.knownActionIndex { return knownActionValues[k] }
        if let n = scanned.internedActionIndex, n < actions.count { return actions[n].value }
        return String(decoding: UnsafeRawBufferPointer(rebasing: b[scanned.actionBytes]), as: UTF8.self)
    }

    /// Gives `scanned` (a scan of `b` by another scanner, perhaps on another thread) this
    /// scanner's number for its action, so that ``action(of:in:)`` reads it here. A known
    /// action needs none (its literal is found by its index in ``Action/known``).
    public mutating func reintern(_ scanned: inout ScannedEnvelope, in b: UnsafeRawBufferPointer) {
        let r = scanned.actionBytes
        if let a = intern(b, r) { scanned.setAction(bytes: r, interned: a.interned, known: a.known) }
    }

    /// The action spelled by `r`: its number in the table (nil when the table is full and
    /// it is not there) and its index in ``Action/known``; nil when not well formed.
    mutating func intern(_ b: UnsafeRawBufferPointer, _ r: Range<Int>) -> (interned: Int?, known: Int?)? {
        let base = b.baseAddress! + r.lowerBound
        let head = JSONBytes.word(UnsafeRawBufferPointer(rebasing: b[r]))
        let found = actionHeads.withUnsafeBufferPointer { heads -> Int? in
            for k in heads.indices where heads[k].count == r.count && heads[k].head == head {
                if r.count <= 8 { return k }
                let same = actions.withUnsafeBufferPointer { a in
                    a[k].bytes.withUnsafeBytes { JSONBytes.equal($0.baseAddress! + 8, base + 8, count: r.count - 8) }
                }
                if same { return k }
            }
            return nil
        }
        if let found { return (found, actionHeads[found].known) }
        var value = String(decoding: UnsafeRawBufferPointer(rebasing: b[r]), as: UTF8.self)
        guard Action(rawValue: value).isWellFormed else { return nil }
        let known = Action.known.firstIndex(of: Action(rawValue: value))
        // The literal of ``Action/known``: no reference count to keep, on any thread.
        if let known { value = Action.known[known].rawValue }
        guard actions.count < Self.maxInternedActions else { return (nil, known) }
        actions.append((Array(b[r]), value))
        actionHeads.append((r.count, head, known))
        return (actions.count - 1, known)
    }
}
