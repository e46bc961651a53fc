import BridgeJSON
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The envelope's own members read where they stand, in one walk: the first try of
/// ``EnvelopeScanner/scan(_:direction:)``.
///
/// The general scan records every member of the first three levels (``JSONMemberScanner``),
/// checks each key against the earlier keys of its object, and then the envelope is read
/// from the record. Here the envelope's objects (the message, `payload`, `error`) are
/// walked directly: a key must be one the envelope allows (a bit per key finds a
/// repeated one), a field's value is checked as it is read (`"1.0"`, a plain string, a
/// known status, digits), and only values of no fixed shape (`data`, `error.message`)
/// go through the general scan's checks (``JSONMemberScanner/scanValue(_:at:depth:)``).
///
/// It is stricter than the general path, never looser: whatever it does not take
/// (invalid or unusual JSON, an unknown key, a repeated key, any field the rules would
/// question) answers nil, and the general scan decides. So a message it takes is one
/// the general scan takes, with the same fields (held by a differential test over
/// every fixture and mutated envelopes).
extension EnvelopeScanner {
    /// The envelope read directly; nil when this walk does not decide.
    package mutating func scanDirect(_ b: UnsafeRawBufferPointer, direction: Direction?) -> ScannedEnvelope? {
        let n = b.count
        guard n > 0, n <= limits.maxInputBytes, n < Int(UInt32.max), limits.maxDepth >= 3,
              limits.maxStringBytes >= 16 else { return nil }  // the envelope's keys and words fit
        var i = 0
        var seen: UInt8 = 0, count = 0
        var type: Int?, id: Range<Int>?, timestamp: Int64?
        var payload = DirectPayload()
        JSONBytes.skipWhitespace(b, &i)
        guard i < n, b[i] == UInt8(ascii: "{") else { return nil }
        i &+= 1
        // The members in the usual order and without spaces, their keys compared as words
        // where they must stand; any other layout is read by the loop, from the start.
        let first = i
        if limits.maxMembers >= 5, JSONBytes.literal(b, &i, "\"version\":\"1.0\","), JSONBytes.literal(b, &i, "\"correlationId\":"),
           let r = members.plainString(b, at: &i), !r.isEmpty, JSONBytes.literal(b, &i, ",\"type\":"),
           let t = Self.known(b, &i, Self.quotedTypes), JSONBytes.literal(b, &i, ",\"timestamp\":"),
           let ms = Self.milliseconds(b, &i, maxBytes: limits.maxNumberBytes), JSONBytes.literal(b, &i, ",\"payload\":"),
           readPayload(b, &i, into: &payload), i < n, b[i] == UInt8(ascii: "}") {
            i &+= 1
            (id, type, timestamp, seen) = (r, t, ms, Top.all)
        } else {
            i = first
            payload = DirectPayload()
            while true {
                JSONBytes.skipWhitespace(b, &i)
                guard let bit = Self.topKey(b, &i), seen & bit == 0, Self.colon(b, &i) else { return nil }
                seen |= bit
                switch bit {
                case Top.version:
                    guard JSONBytes.literal(b, &i, "\"1.0\"") else { return nil }
                case Top.correlationId:
                    guard let r = members.plainString(b, at: &i), !r.isEmpty else { return nil }
                    id = r
                case Top.type:
                    guard let t = Self.known(b, &i, Self.quotedTypes) else { return nil }
                    type = t
                case Top.timestamp:
                    guard let t = Self.milliseconds(b, &i, maxBytes: limits.maxNumberBytes) else { return nil }
                    timestamp = t
                default:
                    guard readPayload(b, &i, into: &payload) else { return nil }
                }
                count &+= 1
                guard count <= limits.maxMembers, let end = Self.memberEnd(b, &i) else { return nil }
                if end { break }
            }
        }
        JSONBytes.skipWhitespace(b, &i)
        guard i == n, seen == Top.all, let type, let id, let timestamp, let action = payload.action else { return nil }
        let isResponse = type == Self.responseIndex
        if type == Self.requestIndex && direction == .hostToWeb || isResponse && direction == .webToHost { return nil }
        // `payload`'s rules, as the general path's.
        if isResponse {
            guard let s = payload.status else { return nil }
            let status = Status.known[s]
            if payload.error {
                guard status != .success, payload.errorCode != nil, payload.errorRecoverable != nil else { return nil }
            } else if status.requiresError {
                return nil
            }
        } else if payload.status != nil || payload.error {
            return nil
        }
        var out = ScannedEnvelope(typeIndex: type, correlationId: id, timestamp: timestamp)
        out.setAction(bytes: payload.actionBytes, interned: action.interned, known: action.known)
        out.setKnown(status: payload.status, errorCode: payload.errorCode)
        out.errorRecoverable = payload.errorRecoverable
        out.data = payload.data
        return out
    }

    /// What the walk read of `payload`.
    struct DirectPayload {
        var action: (interned: Int?, known: Int?)?
        var actionBytes = 0..<0
        var data: Range<Int>?
        /// The index of `status` in ``Status/known``.
        var status: Int?
        /// Whether `error` was there (and complete: message, code, recoverable).
        var error = false
        /// The index of `error.code` in ``ErrorCode/known``.
        var errorCode: Int?
        var errorRecoverable: Bool?
    }

    /// The members of the message, a bit each.
    enum Top {
        static let version: UInt8 = 1, correlationId: UInt8 = 2, type: UInt8 = 4, timestamp: UInt8 = 8, payload: UInt8 = 16
        static let all: UInt8 = 31
    }

    /// `payload` at `i`: an object of `action`, `data`, `status` and `error`, each at most once.
    private mutating func readPayload(_ b: UnsafeRawBufferPointer, _ i: inout Int, into p: inout DirectPayload) -> Bool {
        guard i < b.count, b[i] == UInt8(ascii: "{") else { return false }
        i &+= 1
        var seen: UInt8 = 0, count = 0
        while true {
            JSONBytes.skipWhitespace(b, &i)
            guard let bit = Self.payloadKey(b, &i), seen & bit == 0, Self.colon(b, &i) else { return false }
            seen |= bit
            switch bit {
            case 1:
                guard let r = members.plainString(b, at: &i), let a = intern(b, r) else { return false }
                p.action = a
                p.actionBytes = r
            case 2:
                if i < b.count, b[i] == UInt8(ascii: "{") {
                    let start = i
                    guard members.scanValue(b, at: &i, depth: 2) else { return false }
                    p.data = start..<i
                } else if !JSONBytes.literal(b, &i, "null") {
                    return false
                }
            case 4:
                guard let s = Self.known(b, &i, Self.quotedStatuses) else { return false }
                p.status = s
            default:
                guard readError(b, &i, into: &p) else { return false }
            }
            count &+= 1
            guard count <= limits.maxMembers, let end = Self.memberEnd(b, &i) else { return false }
            if end { return true }
        }
    }

    /// `payload.error` at `i`: `code` (a known code), `message` (a string), `recoverable`, each once.
    private mutating func readError(_ b: UnsafeRawBufferPointer, _ i: inout Int, into p: inout DirectPayload) -> Bool {
        guard i < b.count, b[i] == UInt8(ascii: "{") else { return false }
        i &+= 1
        var seen: UInt8 = 0, count = 0
        while true {
            JSONBytes.skipWhitespace(b, &i)
            guard let bit = Self.errorKey(b, &i), seen & bit == 0, Self.colon(b, &i) else { return false }
            seen |= bit
            switch bit {
            case 1:
                guard let r = members.plainString(b, at: &i),
                      let code = ErrorCode.known.firstIndex(where: { Self.equals(b, r, $0.rawValue) }) else { return false }
                p.errorCode = code
            case 2:
                guard i < b.count, b[i] == UInt8(ascii: "\""), members.scanValue(b, at: &i, depth: 3) else { return false }
            default:
                if JSONBytes.literal(b, &i, "true") { p.errorRecoverable = true }
                else if JSONBytes.literal(b, &i, "false") { p.errorRecoverable = false }
                else { return false }
            }
            count &+= 1
            guard count <= limits.maxMembers, let end = Self.memberEnd(b, &i) else { return false }
            if end {
                p.error = seen == 7
                return p.error
            }
        }
    }
}
