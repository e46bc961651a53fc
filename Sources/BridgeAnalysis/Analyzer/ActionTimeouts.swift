/// The web side's timeout per action, after which a final response is `late-response`.
///
/// Defaults (PROTOCOL.md §2): `capability.query` 5,000 ms, `camera.document.capture`
/// 120,000 ms (document journeys commonly allow two minutes), every other action
/// 30,000 ms. Override per action with `--timeout ACTION=MS`.
public struct ActionTimeouts: Sendable, Hashable {
    /// Timeout for actions without an entry, in milliseconds. Default 30,000.
    var defaultMilliseconds: Int64
    /// Timeouts by action, in milliseconds.
    var perAction: [String: Int64]

    /// The PROTOCOL.md §2 defaults.
    public init(defaultMilliseconds: Int64 = 30_000,
                perAction: [String: Int64] = ["capability.query": 5_000, "camera.document.capture": 120_000]) {
        self.defaultMilliseconds = defaultMilliseconds
        self.perAction = perAction
    }

    /// The timeout for `action`, in milliseconds.
    public func milliseconds(for action: String) -> Int64 {
        perAction.isEmpty ? defaultMilliseconds : perAction[action] ?? defaultMilliseconds
    }

    /// The timeout of each ``ActionKind`` in milliseconds, by raw value (``ActionKind/other``:
    /// the default; look its action up by name): a known kind is one action, so a
    /// request or response of one finds its timeout without hashing the name.
    func byKind() -> [Int64] {
        (0..<ActionKind.count).map { raw in
            ActionKind.names[raw].map { milliseconds(for: $0) } ?? defaultMilliseconds
        }
    }

    /// Largest accepted override: one day, in milliseconds.
    static let maxMilliseconds: Int64 = 86_400_000

    /// Parses `ACTION=MS` (for example `nfc.read=60000`); `*=MS` sets the default.
    /// Throws ``AnalysisError`` with a reason when the text is not of that form or the
    /// value is not an integer in 1...``maxMilliseconds``.
    public mutating func apply(_ text: String) throws(AnalysisError) {
        guard let eq = text.firstIndex(of: "=") else {
            throw AnalysisError(.badOption, "--timeout \"\(text)\": expected ACTION=MS, e.g. nfc.read=60000")
        }
        let action = String(text[..<eq])
        let value = text[text.index(after: eq)...]
        guard !action.isEmpty else {
            throw AnalysisError(.badOption, "--timeout \"\(text)\": the action is empty")
        }
        guard let ms = Int64(value), ms >= 1, ms <= Self.maxMilliseconds else {
            throw AnalysisError(.badOption, "--timeout \"\(text)\": \"\(value)\" is not a whole number of milliseconds in 1...\(Self.maxMilliseconds)")
        }
        if action == "*" { defaultMilliseconds = ms } else { perAction[action] = ms }
    }
}
