/// What a comparison of a recorded message with a replayed one leaves out or compares
/// loosely (docs/REPLAY.md, "Normalization").
///
/// Defaults (each can be turned off):
/// - `timestamps`: the envelope's `/timestamp` (when the message was made, not what it says);
/// - `event-ids`: the `/correlationId` of host events and other host messages that are not
///   responses (hosts make a fresh `ios-event-<uuid>` each time; events are paired by
///   action and order instead);
/// - `images`: members named `imageData`, `previewImageData` or `photo` holding base64
///   images are compared by mime type, dimensions and decodability (PNG IHDR, JPEG SOF),
///   not bytes.
public struct NormalizationRules: Sendable, Hashable {
    /// Ignore `/timestamp`. Default true.
    var ignoreTimestamps = true
    /// Ignore `/correlationId` of host messages that are not responses. Default true.
    var ignoreEventIDs = true
    /// Compare images by summary. Default true.
    var summarizeImages = true
    /// Member names whose string values are base64 images.
    var imageMembers: Set<String> = ["imageData", "previewImageData", "photo"]
    /// Further parts to ignore in every message (`--ignore`).
    public var ignored: [JSONPointerPattern] = []
    /// Parts found volatile by learning (`--learn`), ignored in every message.
    public var volatile: [JSONPointerPattern] = []

    /// The defaults.
    public init() {}

    /// The defaults.
    public static let `default` = NormalizationRules()

    /// No default rule: every byte of every member counts (patterns still apply).
    public static var exact: NormalizationRules {
        var r = NormalizationRules()
        r.ignoreTimestamps = false
        r.ignoreEventIDs = false
        r.summarizeImages = false
        return r
    }

    /// Whether the value at `path` is left out, in a message that `isResponse` or not.
    public func ignores(_ path: ArraySlice<String>, isResponse: Bool) -> Bool {
        if path.count == 1 {
            if ignoreTimestamps && path.first == "timestamp" { return true }
            if ignoreEventIDs && !isResponse && path.first == "correlationId" { return true }
        }
        for p in ignored where p.covers(path) { return true }
        for p in volatile where p.covers(path) { return true }
        return false
    }

    /// Whether a string member named `key` is compared as an image.
    func isImage(_ key: String) -> Bool {
        summarizeImages && imageMembers.contains(key)
    }

    /// The names of the default rules in force, for reports.
    var activeDefaults: [String] {
        var out: [String] = []
        if ignoreTimestamps { out.append("timestamps") }
        if ignoreEventIDs { out.append("event-ids") }
        if summarizeImages { out.append("images") }
        return out
    }
}
