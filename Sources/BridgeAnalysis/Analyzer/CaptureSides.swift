/// The document sides a connection requested or captured that the `dual-capture-incomplete`
/// rule reads (seed 001: one picture, `side: single`, or two, `front` then `back`), as
/// bits.
///
/// Any other `side` value is not kept: no rule reads it. A set of strings kept every
/// side a session named (a hostile session's million different sides, a million
/// strings) and hashed one per document capture request and answer.
struct CaptureSides: OptionSet, Equatable {
    /// The bits.
    var rawValue: UInt8

    /// The sides, a bit each.
    init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `front`.
    static let front = CaptureSides(rawValue: 1)
    /// `back`.
    static let back = CaptureSides(rawValue: 2)
    /// `single`: the whole document in one picture.
    static let single = CaptureSides(rawValue: 4)

    /// The side named `side` exactly (the protocol's values are lowercase); empty for
    /// any other value.
    init(side: String) {
        switch side {
        case "front": self = .front
        case "back": self = .back
        case "single": self = .single
        default: self = []
        }
    }
}
