import BridgeProtocol

/// The actions the session rules treat apart, as a one-byte number: a message's kind is
/// found once (from the scanner's ``ScannedEnvelope/knownActionIndex`` on the fast path),
/// and the rules then compare numbers, not strings. Comparing two different `String`s
/// goes through the standard library's slow comparison; a session's events met four of
/// them each.
enum ActionKind: UInt8 {
    case other
    case capabilityQuery, documentCapture, selfieCapture, nfcRead
    case hostReady, hostBackground, hostForeground
    case journeyCancel, journeyStarted, journeyComplete, journeyError

    /// The kind of the action named `name` (the slow path: decoded messages).
    init(_ name: String) {
        switch name {
        case Action.capabilityQuery.rawValue: self = .capabilityQuery
        case Action.documentCapture.rawValue: self = .documentCapture
        case Action.selfieCapture.rawValue: self = .selfieCapture
        case Action.nfcRead.rawValue: self = .nfcRead
        case Action.hostReady.rawValue: self = .hostReady
        case Action.hostBackground.rawValue: self = .hostBackground
        case Action.hostForeground.rawValue: self = .hostForeground
        case Action.journeyCancel.rawValue: self = .journeyCancel
        case Action.journeyStarted.rawValue: self = .journeyStarted
        case Action.journeyComplete.rawValue: self = .journeyComplete
        case Action.journeyError.rawValue: self = .journeyError
        default: self = .other
        }
    }

    /// The kind of the action at `index` of ``Action/known`` (nil: any other action), read
    /// from `table` (``byKnownIndex``; a caller per message passes its own copy: each use
    /// of the static checks its `swift_once`).
    init(knownIndex index: Int?, in table: [ActionKind] = byKnownIndex) {
        guard let index else {
            self = .other
            return
        }
        self = table[index]
    }

    /// How many kinds there are (their raw values are `0..<count`).
    static let count = Int(ActionKind.journeyError.rawValue) + 1

    /// The kind of each of ``Action/known``, in its order.
    static let byKnownIndex: [ActionKind] = Action.known.map { ActionKind($0.rawValue) }

    /// The action each kind is, by raw value (nil for ``other``).
    static let names: [String?] = (0..<count).map { raw in
        raw == other.rawValue ? nil : Action.known.first { ActionKind($0.rawValue).rawValue == raw }?.rawValue
    }

    /// Whether the action is a typed slot, which serves one request at a time
    /// (PROTOCOL.md §2).
    var isTypedSlot: Bool { self == .documentCapture || self == .selfieCapture }
}
