import BridgeJSON
import BridgeProtocol

/// The fields of a message the session rules use, from the envelope or, when it did
/// not decode, from what could be read of it.
///
/// On the fast path (a message the ``EnvelopeScanner`` read) the facts hold no string
/// but the action's: the status and error code are numbers into the known tables (as
/// the scan has them), the direction is ``way``, the id and `data` are pointers into the
/// message. What only the decoder's slow path has (an unknown status or code, another
/// direction, the decoded id and data) is in ``decoded``, one reference, nil on the fast
/// path. Six strings per message were retained when the facts were made and released
/// when they went (about 2% of `analyze`'s CPU time on a session of small messages).
struct MessageFacts {
    /// The message's type and direction as numbers, for the tests made per message.
    var kind: MessageKind
    var way: MessageWay
    /// The id's bytes between its quotes (fast path: valid UTF-8 without escapes). Like
    /// ``rawData``, it points into the message's bytes, valid while the message is
    /// analysed (``SessionAnalyzer/scannedMessage(_:_:time:direction:record:slot:)``):
    /// what is kept past it is copied. Pointers, not slices: a slice retained and
    /// released the reader's buffer, shared with the reading thread, twice per message.
    var rawID: UnsafeRawBufferPointer?
    /// The longest id kept, in bytes (``AnalyzerLimits/maxIdentifierBytes``).
    var idLimit = Int.max
    var action: String?
    /// ``action``'s kind, for the rules that tell actions apart.
    var actionKind = ActionKind.other
    /// ``status`` as a number: 0 for none, k + 1 for `Status.known[k]`, ``otherNumber``
    /// for another (in ``decoded``).
    var statusNumber: UInt8 = 0
    /// ``errorCode`` as a number, as ``statusNumber`` with ``ErrorCode/known``.
    var errorCodeNumber: UInt8 = 0
    /// `payload.error.recoverable`, when the error object is complete.
    var errorRecoverable: Bool?
    /// The bytes of `payload.data` found by ``EnvelopeScanner`` (fast path): parsed only
    /// when a rule reads them.
    var rawData: UnsafeRawBufferPointer?
    var timestamp: Int64?
    var time: Int64
    var record: Int
    /// What only the slow path has (nil on the fast path).
    var decoded: DecodedFacts?

    /// ``statusNumber`` and ``errorCodeNumber`` of a value not in the known table.
    static let otherNumber: UInt8 = 0xFF
    /// The numbers of the statuses and the code the rules test (`MessageFactsTests`
    /// holds them to ``Status/known`` and ``ErrorCode/known``): literals, read with no
    /// `swift_once`.
    static let successNumber: UInt8 = 1, errorNumber: UInt8 = 2, acknowledgedNumber: UInt8 = 5
    static let busyNumber: UInt8 = 1

    /// `correlationId` (clipped to `maxIdentifierBytes`): made from ``rawID`` on each use
    /// when the scanner read the message, so an event, whose id is seldom read, makes no
    /// `String` (59% of a field session's messages; a UUID id is a heap allocation).
    var id: String? {
        get {
            guard let rawID else { return decoded?.id }
            return SessionAnalyzer.clip(String(decoding: rawID, as: UTF8.self), to: idLimit)
        }
        set {
            slow.id = newValue
            rawID = nil
        }
    }

    /// ``rawID`` when ``id`` is exactly its bytes (not clipped).
    var unclippedRawID: UnsafeBufferPointer<UInt8>? {
        guard let rawID, rawID.count <= idLimit else { return nil }
        return rawID.assumingMemoryBound(to: UInt8.self)
    }

    /// `payload.data` as decoded by ``EnvelopeDecoder`` (slow path).
    var decodedData: JSONObject? { decoded?.data }

    /// `payload.status`.
    var status: Status? {
        switch statusNumber {
        case 0: return nil
        case Self.otherNumber: return decoded?.status
        default: return Status.known[Int(statusNumber) - 1]
        }
    }

    /// `payload.error.code`, when the error object is complete.
    var errorCode: ErrorCode? {
        switch errorCodeNumber {
        case 0: return nil
        case Self.otherNumber: return decoded?.errorCode
        default: return ErrorCode.known[Int(errorCodeNumber) - 1]
        }
    }

    /// The direction: ``way``'s, or the other one the slow path read.
    var direction: Direction {
        switch way {
        case .webToHost: return .webToHost
        case .hostToWeb: return .hostToWeb
        case .other: return decoded?.direction ?? Direction(rawValue: "")
        }
    }

    /// `payload.data`: parsed from ``rawData`` on each use (the scanner already checked
    /// it is a valid object without duplicate keys), else the decoded object.
    var data: JSONObject? {
        guard let rawData else { return decodedData }
        guard case .object(let o)? = try? JSONParser().parse(rawData).value else { return nil }
        return o
    }

    /// ``decoded``, made when first needed.
    private var slow: DecodedFacts {
        mutating get {
            if let decoded { return decoded }
            let made = DecodedFacts()
            decoded = made
            return made
        }
    }

    /// Sets the status, the error code and the direction as the slow path read them.
    mutating func set(status: Status?, errorCode: ErrorCode?, direction: Direction) {
        statusNumber = Self.number(status, in: Status.known)
        if statusNumber == Self.otherNumber { slow.status = status }
        errorCodeNumber = Self.number(errorCode, in: ErrorCode.known)
        if errorCodeNumber == Self.otherNumber { slow.errorCode = errorCode }
        if way == .other { slow.direction = direction }
    }

    /// Keeps `direction`, neither `w2h` nor `h2w` (``way`` is `.other`), for the fast path.
    mutating func set(otherDirection direction: Direction) {
        slow.direction = direction
    }

    /// The number of `value` in `known` (0: nil; ``otherNumber``: not in it).
    static func number<T: Equatable>(_ value: T?, in known: [T]) -> UInt8 {
        guard let value else { return 0 }
        return known.firstIndex(of: value).map { UInt8($0 + 1) } ?? otherNumber
    }
}

/// What only ``EnvelopeDecoder``'s slow path gives ``MessageFacts``.
final class DecodedFacts {
    /// The decoded (and clipped) id, or the one set.
    var id: String?
    /// `payload.data` as decoded.
    var data: JSONObject?
    /// A status or error code outside the known tables.
    var status: Status?, errorCode: ErrorCode?
    /// A direction other than `w2h` and `h2w`.
    var direction: Direction?
}
