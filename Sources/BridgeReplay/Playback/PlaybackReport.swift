import BridgeServer
import BridgeTransport

/// What a playback (`--as-host`) did: how many live requests it answered from the
/// recording, and which it could not.
public struct PlaybackReport: Sendable {
    /// Live connections served.
    public var connections = 0
    /// Live requests answered from the recording.
    public var answered = 0
    /// Of those, matched by action only (no recorded request had the same data).
    public var matchedByActionOnly = 0
    /// Live requests with no recorded answer (answered `unsupported`), up to
    /// ``ReplayLimits/maxUnmatchedListed``.
    public var unmatched: [UnmatchedRequest] = []
    /// Recorded requests no live request asked for, summed over connections.
    public var unused = 0
    /// The journey's outcome, when a `journey.complete` or `journey.error` came.
    public var outcome: JourneyEnd?

    /// Creates an empty report.
    public init() {}

    /// Adds one finished connection.
    mutating func add(_ c: PlaybackConnection) {
        connections += 1
        answered += c.answered
        matchedByActionOnly += c.matchedByActionOnly
        unused += c.unused
        for u in c.unmatched where unmatched.count < ReplayLimits.maxUnmatchedListed { unmatched.append(u) }
    }

    /// Exit status for the CLI: 1 when a request went unmatched or the journey failed, else 0.
    public var exitStatus: Int32 {
        unmatched.isEmpty && outcome?.completed != false ? 0 : 1
    }

    /// A few lines for people.
    public func renderText() -> String {
        var out = "playback: \(connections) connection(s), \(answered) request(s) answered from the recording"
        if matchedByActionOnly > 0 { out += " (\(matchedByActionOnly) by action only: their data differed)" }
        out += ", \(unmatched.count) unmatched, \(unused) recorded request(s) not asked for\n"
        if !unmatched.isEmpty {
            out += "unmatched requests (answered unsupported / UNSUPPORTED_ACTION):\n"
            for u in unmatched { out += "  \(u)\n" }
        }
        if let outcome { out += "\(outcome)\n" }
        return out
    }
}
