import BridgeJSON

extension ArchiveEvent.Kind {
    /// What WebKit does to the next record of the same `conn` and `dir` as it crosses the
    /// bridge (docs/FORMAT.md §5): `reason` is `not delivered: <changes>` (WebKit will not
    /// deliver the message at all) or `changed: <changes>` (members dropped or changed;
    /// the record holds the message as converted). Written from a tap line's `crossing`
    /// member (§9), immediately before the record it describes.
    public static let crossing = ArchiveEvent.Kind(rawValue: "crossing")
}

/// A tap line's `crossing` member (docs/FORMAT.md §9, docs/TAP.md §1):
/// `{"delivered":true|false,"changes":["payload.data.n: a BigInt, dropped", ...]}`, the
/// JavaScript tap's account of what WebKit's conversion of the posted value does to it.
/// The line's message is already the converted form; this says what was lost on the way.
public struct TapCrossing: Sendable, Hashable {
    /// False when WebKit will not deliver the message at all (it holds a function, say).
    public var delivered: Bool
    /// What the conversion dropped or changed, one sentence per member (may be empty).
    public var changes: [String]

    /// The longest `reason` written: 4 KiB, the format's cap for an event's reason (§5).
    public static let maxReasonBytes = 4096

    /// Creates a crossing note.
    public init(delivered: Bool, changes: [String]) {
        self.delivered = delivered
        self.changes = changes
    }

    /// Whether it says anything: a message delivered with nothing changed needs no event.
    public var isWorthAnEvent: Bool { !delivered || !changes.isEmpty }

    /// `not delivered: <changes joined by "; ">` or `changed: <changes joined by "; ">`
    /// (`not delivered` alone when the tap named no change), cut to
    /// ``maxReasonBytes`` on a character boundary, ending in `…` when cut.
    public var reason: String {
        let head = delivered ? "changed" : "not delivered"
        let text = changes.isEmpty ? head : head + ": " + changes.joined(separator: "; ")
        return Self.cut(text, to: Self.maxReasonBytes)
    }

    /// Reads a `crossing` member's value; nil (with why) when it is not of the documented
    /// shape: an object whose `delivered` is a boolean and whose `changes`, when present,
    /// is an array of strings. Other members are ignored, as everywhere in the format.
    static func read(_ value: JSONValue) -> Result<TapCrossing, CrossingShapeError> {
        guard case .object(let o) = value else {
            return .failure(CrossingShapeError(reason: "\"crossing\" must be an object, not \(value.kindName)"))
        }
        guard case .bool(let delivered)? = o["delivered"] else {
            let found = o["delivered"].map { $0.kindName } ?? "missing"
            return .failure(CrossingShapeError(reason: "\"crossing\".\"delivered\" must be true or false, not \(found)"))
        }
        var changes: [String] = []
        if let c = o["changes"], !c.isNull {
            guard case .array(let items) = c else {
                return .failure(CrossingShapeError(reason: "\"crossing\".\"changes\" must be an array of strings, not \(c.kindName)"))
            }
            for (i, item) in items.enumerated() {
                guard case .string(let s) = item else {
                    return .failure(CrossingShapeError(reason: "\"crossing\".\"changes\"[\(i)] must be a string, not \(item.kindName)"))
                }
                changes.append(s)
            }
        }
        return .success(TapCrossing(delivered: delivered, changes: changes))
    }

    /// `s` cut to at most `max` UTF-8 bytes on a character boundary, `…` (3 bytes) ending
    /// a cut text; `s` itself when it fits.
    static func cut(_ s: String, to max: Int) -> String {
        guard s.utf8.count > max else { return s }
        var out = ""
        var used = 0
        for c in s {
            let n = c.utf8.count
            guard used + n <= max - 3 else { break }
            out.append(c)
            used += n
        }
        return out + "…"
    }
}

/// Why a `crossing` member could not be read (the line's message is imported anyway).
struct CrossingShapeError: Error {
    var reason: String
}
