/// How serious a finding is. `error` breaks the protocol (exit 1 by default),
/// `warning` is suspicious, `info` is worth knowing.
public enum Severity: String, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// Informational.
    case info
    /// Suspicious but allowed.
    case warning
    /// Breaks the protocol.
    case error

    /// The spelling.
    public var description: String { rawValue }

    /// `info` < `warning` < `error`.
    public static func < (lhs: Severity, rhs: Severity) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .info: return 0
        case .warning: return 1
        case .error: return 2
        }
    }
}
