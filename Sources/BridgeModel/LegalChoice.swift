/// A choice PROTOCOL.md §7 leaves to the host, as the model names it. An open set: the
/// spelling is what reports print, and a later version may add more.
///
/// Only the choices other than the reference host's are named (an explanation that needs
/// none is a plain pass); `--strict` narrows the model to the reference host's
/// (docs/CONFORMANCE.md, "The model").
public struct LegalChoice: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The spelling, e.g. `duplicate-keys:last-wins`.
    public let rawValue: String
    /// Wraps a spelling.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The spelling.
    public var description: String { rawValue }
    /// Orders by spelling.
    public static func < (a: LegalChoice, b: LegalChoice) -> Bool { a.rawValue < b.rawValue }

    /// Duplicate keys: the first member of a name wins.
    public static let duplicateKeysFirstWins = LegalChoice(rawValue: "duplicate-keys:first-wins")
    /// Duplicate keys: the last member of a name wins.
    public static let duplicateKeysLastWins = LegalChoice(rawValue: "duplicate-keys:last-wins")
    /// Duplicate keys: the message is invalid, answered under another of the ids it
    /// carries than the one the reference host reads.
    public static let duplicateKeysInvalid = LegalChoice(rawValue: "duplicate-keys:invalid")
    /// A number beyond what this project accepts (a timestamp over 2^63-1): accepted.
    public static let bigNumberAccepted = LegalChoice(rawValue: "big-number:accepted")
    /// A request whose id is still open: rejected (INVALID_REQUEST or BUSY).
    public static let reusedOpenIdRejected = LegalChoice(rawValue: "reused-open-id:rejected")
    /// A request whose id is still open: served as well, either answer bearing the id.
    public static let reusedOpenIdServed = LegalChoice(rawValue: "reused-open-id:served")
    /// A request whose id is still open: served instead of the first one.
    public static let reusedOpenIdReplaces = LegalChoice(rawValue: "reused-open-id:replaces")
    /// A request reusing an answered id: rejected with INVALID_REQUEST.
    public static let reusedAnsweredIdRejected = LegalChoice(rawValue: "reused-answered-id:rejected")
    /// `version` "1.x", x > 0: VERSION_MISMATCH.
    public static let minorVersionMismatch = LegalChoice(rawValue: "version-1.x:mismatch")
    /// Another major version: VERSION_MISMATCH (§1) rather than INVALID_REQUEST (§4).
    public static let majorVersionMismatch = LegalChoice(rawValue: "version-major:version-mismatch")
    /// Unknown members: the message is invalid.
    public static let unknownMemberInvalid = LegalChoice(rawValue: "unknown-member:invalid")
    /// An optional member given as null: the message is invalid.
    public static let nullMemberInvalid = LegalChoice(rawValue: "null-member:invalid")
    /// An action of one segment (`c`, no dot) taken as malformed: §1 calls an action a
    /// dot-separated namespace without saying whether one name is one.
    public static let undottedActionInvalid = LegalChoice(rawValue: "action:needs-a-dot")
    /// A malformed request routed as far as it can be, not answered INVALID_REQUEST.
    public static let malformedRouted = LegalChoice(rawValue: "malformed:routed")
    /// A malformed request answered with its raw action rather than `invalid`.
    public static let malformedRawAction = LegalChoice(rawValue: "malformed:raw-action")
    /// Bytes this project's parser refuses (limits, escapes) that the host's parser read
    /// as a request and answered.
    public static let otherParser = LegalChoice(rawValue: "parser:accepts-more")
    /// BUSY for an action that is not a typed capture slot's (a custom capability's own
    /// busy rule).
    public static let busyOnOtherAction = LegalChoice(rawValue: "busy:other-action")
    /// `capability.query` answered with something other than success.
    public static let queryNotSuccess = LegalChoice(rawValue: "capability-query:not-success")
    /// An action nobody handles answered with something other than unsupported
    /// UNSUPPORTED_ACTION (the host may handle it).
    public static let unknownActionHandled = LegalChoice(rawValue: "unknown-action:handled")

    /// The PROTOCOL.md section that leaves this choice open.
    public var section: String {
        switch self {
        case .majorVersionMismatch: return "§1, §4"
        case .busyOnOtherAction, .unknownActionHandled: return "§2"
        case .undottedActionInvalid: return "§1"
        case .queryNotSuccess: return "§3"
        default: return "§7"
        }
    }

    /// A sentence for reports: what the host did.
    public var sentence: String {
        switch self {
        case .duplicateKeysFirstWins: return "takes the first of duplicate keys"
        case .duplicateKeysLastWins: return "takes the last of duplicate keys"
        case .duplicateKeysInvalid: return "rejects a message with duplicate keys"
        case .bigNumberAccepted: return "accepts numbers beyond 2^63-1"
        case .reusedOpenIdRejected: return "rejects a request whose id is still open"
        case .reusedOpenIdServed: return "serves a request whose id is still open as well"
        case .reusedOpenIdReplaces: return "serves a request whose id is still open instead of the first"
        case .reusedAnsweredIdRejected: return "rejects a request that reuses an answered id"
        case .minorVersionMismatch: return "answers version 1.x with VERSION_MISMATCH"
        case .majorVersionMismatch: return "answers another major version with VERSION_MISMATCH"
        case .unknownMemberInvalid: return "rejects unknown members"
        case .nullMemberInvalid: return "rejects an optional member given as null"
        case .undottedActionInvalid: return "rejects an action without a dot as malformed"
        case .malformedRouted: return "routes a malformed request as far as it can"
        case .malformedRawAction: return "answers a malformed request with its raw action"
        case .otherParser: return "reads as a request bytes this project's parser refuses"
        case .busyOnOtherAction: return "answers BUSY for an action without a typed slot"
        case .queryNotSuccess: return "does not answer capability.query with success"
        case .unknownActionHandled: return "handles an action the reference host does not"
        default: return rawValue
        }
    }
}
