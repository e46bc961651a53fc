/// A `payload.action`: a dot-separated namespace such as `camera.document.capture`.
/// An open set: any well-formed name is valid; these are the ones PROTOCOL.md §3 names.
public struct Action: RawRepresentable, Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The wire spelling.
    public let rawValue: String
    /// Wraps a wire spelling.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Wraps a literal.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The wire spelling.
    public var description: String { rawValue }

    /// Built-in capability query (web → host request).
    public static let capabilityQuery = Action(rawValue: "capability.query")
    /// Typed slot `camera.document`.
    public static let documentCapture = Action(rawValue: "camera.document.capture")
    /// Typed slot `camera.selfie`.
    public static let selfieCapture = Action(rawValue: "camera.selfie.capture")
    /// The NFC custom capability.
    public static let nfcRead = Action(rawValue: "nfc.read")
    /// Host lifecycle: the host is ready.
    public static let hostReady = Action(rawValue: "host.ready")
    /// Host lifecycle: the app went to the background.
    public static let hostBackground = Action(rawValue: "host.background")
    /// Host lifecycle: the app came to the foreground.
    public static let hostForeground = Action(rawValue: "host.foreground")
    /// Host lifecycle: the device orientation changed.
    public static let hostOrientation = Action(rawValue: "host.orientation")
    /// Host asks the journey to stop, with `{reason}`.
    public static let journeyCancel = Action(rawValue: "journey.cancel")
    /// Web event: the journey started.
    public static let journeyStarted = Action(rawValue: "journey.started")
    /// Web event: journey progress.
    public static let journeyProgress = Action(rawValue: "journey.progress")
    /// Web event: the journey completed, `{status, referenceId?}`.
    public static let journeyComplete = Action(rawValue: "journey.complete")
    /// Web event: the journey failed, `{message}`.
    public static let journeyError = Action(rawValue: "journey.error")

    /// The actions named above, in a fixed order: ``ScannedEnvelope/knownActionIndex``
    /// is an index into it.
    public static let known: [Action] = [
        .capabilityQuery, .documentCapture, .selfieCapture, .nfcRead, .hostReady, .hostBackground, .hostForeground,
        .hostOrientation, .journeyCancel, .journeyStarted, .journeyProgress, .journeyComplete, .journeyError,
    ]

    /// Whether the name is well formed: non-empty segments of ASCII letters, digits,
    /// `_` or `-`, separated by single dots (project rule).
    public var isWellFormed: Bool {
        guard !rawValue.isEmpty else { return false }
        var previousWasDot = true
        for c in rawValue.utf8 {
            switch c {
            case UInt8(ascii: "."):
                if previousWasDot { return false }
                previousWasDot = true
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                previousWasDot = false
            default:
                return false
            }
        }
        return !previousWasDot
    }
}
