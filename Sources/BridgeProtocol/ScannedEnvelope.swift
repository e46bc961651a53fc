/// What ``EnvelopeScanner`` read of a message that ``EnvelopeDecoder`` would decode with
/// no finding: the fields the analyzer's rules use, as values or as byte ranges into the
/// scanned bytes.
///
/// Plain data (40 bytes, no reference): the type, status and error code as their index
/// among the known values (the only ones the scanner answers with; its setters are
/// internal, so no unknown value can be stored and lost), the action as its number in the
/// scanner's table (``EnvelopeScanner/action(of:in:)`` gives its `String`), the ranges as
/// 32-bit offsets (the scanner declines a message of 4 GiB or more). A scan is copied
/// into lists and handed between threads: with an action `String` inside, each copy
/// retained it and each list of scans was destroyed one element at a time (about 3% of
/// `analyze` on a session of small messages); now a list is freed as plain bytes.
public struct ScannedEnvelope: Sendable, Hashable {
    private var typeIndex: UInt8
    /// 0: none; else the index in ``Status/known`` plus one.
    private var statusIndex: UInt8 = 0
    /// 0: none; else the index in ``ErrorCode/known`` plus one.
    private var errorCodeIndex: UInt8 = 0
    /// 0: none, 1: false, 2: true.
    private var recoverable: UInt8 = 0
    private var hasData = false
    /// 0: not a known action; else the index in ``Action/known`` plus one.
    private var knownActionNumber: UInt8 = 0
    /// 0: not in the table of the scanner that made the scan; else its index there plus one.
    private var internNumber: UInt8 = 0
    private var idStart: UInt32, idEnd: UInt32
    private var actionStart: UInt32 = 0, actionEnd: UInt32 = 0
    private var dataStart: UInt32 = 0, dataEnd: UInt32 = 0

    /// `timestamp`, epoch milliseconds (at least 10^11: not seconds).
    public var timestamp: Int64
    /// A scan of a message of type `type` (one of ``MessageType/known``) with the id's
    /// bytes at `correlationId` (offsets below 2^32).
    init(type: MessageType, correlationId: Range<Int>, timestamp: Int64) {
        typeIndex = Self.typeIndex(type)
        idStart = UInt32(correlationId.lowerBound)
        idEnd = UInt32(correlationId.upperBound)
        self.timestamp = timestamp
    }

    /// A scan whose type is `MessageType.known[typeIndex]` (no search of the known
    /// values: ``EnvelopeScanner/scanDirect(_:direction:)``).
    init(typeIndex: Int, correlationId: Range<Int>, timestamp: Int64) {
        self.typeIndex = UInt8(typeIndex)
        idStart = UInt32(correlationId.lowerBound)
        idEnd = UInt32(correlationId.upperBound)
        self.timestamp = timestamp
    }

    /// Sets the action: its bytes (between its quotes), its number in the scanning
    /// scanner's table (nil: not there) and its index in ``Action/known`` (nil: another).
    mutating func setAction(bytes: Range<Int>, interned: Int?, known: Int?) {
        actionBytes = bytes
        internNumber = interned.map { UInt8($0 + 1) } ?? 0
        knownActionIndex = known
    }

    /// The index of the action in the table of the scanner that made (or last
    /// reinterned) the scan; nil when that table was full. Only that scanner can read it
    /// (``EnvelopeScanner/action(of:in:)``).
    public var internedActionIndex: Int? { internNumber == 0 ? nil : Int(internNumber) - 1 }

    /// Sets ``status`` to `Status.known[index]` (nil: none) and ``errorCode`` to
    /// `ErrorCode.known[code]`, by index.
    mutating func setKnown(status index: Int?, errorCode code: Int?) {
        statusIndex = index.map { UInt8($0 + 1) } ?? 0
        errorCodeIndex = code.map { UInt8($0 + 1) } ?? 0
    }

    /// `type` (one of ``MessageType/known``; the scanner sets no other).
    public internal(set) var type: MessageType {
        get { MessageType.known[Int(typeIndex)] }
        set { typeIndex = Self.typeIndex(newValue) }
    }

    /// The index of ``type`` in ``MessageType/known`` (read without comparing strings).
    public var knownTypeIndex: Int { Int(typeIndex) }

    static func typeIndex(_ type: MessageType) -> UInt8 {
        guard let k = MessageType.known.firstIndex(of: type) else { preconditionFailure("ScannedEnvelope holds a known type, not \(type)") }
        return UInt8(k)
    }

    /// `correlationId`'s bytes between the quotes (no escapes, not empty).
    public internal(set) var correlationId: Range<Int> {
        get { Int(idStart)..<Int(idEnd) }
        set { (idStart, idEnd) = (UInt32(newValue.lowerBound), UInt32(newValue.upperBound)) }
    }

    /// Where `payload.action`'s bytes are (between its quotes): a well-formed action,
    /// without escapes (``EnvelopeScanner/action(of:in:)``, ``EnvelopeScanner/reintern(_:in:)``).
    public internal(set) var actionBytes: Range<Int> {
        get { Int(actionStart)..<Int(actionEnd) }
        set { (actionStart, actionEnd) = (UInt32(newValue.lowerBound), UInt32(newValue.upperBound)) }
    }

    /// The index of the action in ``Action/known``; nil for any other action. Set with
    /// the action by the scanner (``EnvelopeScanner/reintern(_:in:)`` keeps it), so a
    /// reader tells the known actions apart without comparing strings.
    public internal(set) var knownActionIndex: Int? {
        get { knownActionNumber == 0 ? nil : Int(knownActionNumber) - 1 }
        set { knownActionNumber = newValue.map { UInt8($0 + 1) } ?? 0 }
    }

    /// `payload.status` (a known status; responses only).
    public internal(set) var status: Status? {
        get { statusIndex == 0 ? nil : Status.known[Int(statusIndex) - 1] }
        set { statusIndex = newValue.flatMap { Status.known.firstIndex(of: $0) }.map { UInt8($0 + 1) } ?? 0 }
    }

    /// `payload.error.code` (a known code; non-success responses only).
    public internal(set) var errorCode: ErrorCode? {
        get { errorCodeIndex == 0 ? nil : ErrorCode.known[Int(errorCodeIndex) - 1] }
        set { errorCodeIndex = newValue.flatMap { ErrorCode.known.firstIndex(of: $0) }.map { UInt8($0 + 1) } ?? 0 }
    }

    /// ``status`` as a number: 0 for none, else its index in ``Status/known`` plus one
    /// (tested without making or comparing a string).
    public var knownStatusNumber: UInt8 { statusIndex }

    /// ``errorCode`` as a number: 0 for none, else its index in ``ErrorCode/known`` plus one.
    public var knownErrorCodeNumber: UInt8 { errorCodeIndex }

    /// `payload.error.recoverable`.
    public internal(set) var errorRecoverable: Bool? {
        get { recoverable == 0 ? nil : recoverable == 2 }
        set { recoverable = newValue.map { $0 ? 2 : 1 } ?? 0 }
    }

    /// The bytes of the `payload.data` object (nil when absent or `null`).
    public internal(set) var data: Range<Int>? {
        get { hasData ? Int(dataStart)..<Int(dataEnd) : nil }
        set {
            hasData = newValue != nil
            (dataStart, dataEnd) = newValue.map { (UInt32($0.lowerBound), UInt32($0.upperBound)) } ?? (0, 0)
        }
    }
}
