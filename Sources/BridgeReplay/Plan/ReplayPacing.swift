/// How fast recorded messages are sent (`--pace`).
///
/// - `asap`: each message as soon as causality allows (the responses it waited for in
///   the recording have arrived, or timed out).
/// - `recorded`: each message keeps its recorded gap after the message before it and
///   after the response it waited for, whichever ends later.
/// - `xN` (e.g. `x2`, `x0.5`): the recorded gaps divided by N.
public struct ReplayPacing: Sendable, Hashable, CustomStringConvertible {
    /// Multiplier applied to recorded gaps; nil for `asap`.
    public var gapScale: Double?

    /// As soon as possible.
    public static let asap = ReplayPacing(gapScale: nil)
    /// Recorded gaps.
    public static let recorded = ReplayPacing(gapScale: 1)

    /// Recorded gaps divided by `factor` (> 0).
    public static func speed(_ factor: Double) -> ReplayPacing {
        ReplayPacing(gapScale: 1 / factor)
    }

    /// Parses `asap`, `recorded` or `xN` (N a positive number up to 1,000,000); nil otherwise.
    public init?(parsing text: String) {
        switch text {
        case "asap": self = .asap
        case "recorded", "x1": self = .recorded
        default:
            guard text.hasPrefix("x"), let n = Double(text.dropFirst()), n.isFinite, n > 0, n <= 1_000_000 else { return nil }
            self = .speed(n)
        }
    }

    init(gapScale: Double?) {
        self.gapScale = gapScale
    }

    /// Whether this is `asap`.
    public var isASAP: Bool { gapScale == nil }

    /// A recorded duration (ns) scaled by this pacing (`asap` keeps it as is).
    public func scale(_ nanoseconds: Int64) -> Int64 {
        guard let s = gapScale else { return nanoseconds }
        return Int64((Double(max(0, nanoseconds)) * s).rounded())
    }

    /// `asap`, `recorded` or `x2`.
    public var description: String {
        guard let s = gapScale else { return "asap" }
        if s == 1 { return "recorded" }
        let factor = 1 / s
        return factor == factor.rounded() ? "x\(Int(factor))" : "x\(factor)"
    }
}
