import BridgeProtocol

/// A message's direction as a one-byte number. ``Direction`` and ``MessageType`` are
/// strings that can grow (any wire value stays representable); the rules test them
/// several times per message, and two different strings compare through the standard
/// library's slow path (seven such calls per message in the rules' entry).
enum MessageWay: UInt8 {
    case webToHost, hostToWeb, other

    /// The way of `direction`.
    init(_ direction: Direction) {
        if direction == .webToHost {
            self = .webToHost
        } else if direction == .hostToWeb {
            self = .hostToWeb
        } else {
            self = .other
        }
    }
}

/// A message's type as a one-byte number (see ``MessageWay``).
enum MessageKind: UInt8 {
    case request, response, event, none

    /// The kind of `type` (nil or unknown: `none`).
    init(_ type: MessageType?) {
        guard let type else {
            self = .none
            return
        }
        if type == .event {
            self = .event
        } else if type == .request {
            self = .request
        } else if type == .response {
            self = .response
        } else {
            self = .none
        }
    }

    /// The kind of `MessageType.known[index]`, read from `table` (``byKnownIndex``; a
    /// caller per message passes its own copy, as for ``ActionKind/init(knownIndex:in:)``).
    init(knownIndex index: Int, in table: [MessageKind] = byKnownIndex) {
        self = table[index]
    }

    /// The kind of each of ``MessageType/known``, in its order.
    static let byKnownIndex: [MessageKind] = MessageType.known.map { MessageKind($0) }
}
