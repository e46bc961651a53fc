import BridgeJSON
import BridgeProtocol

/// A request the recording had no answer for, reported at the end of a playback.
public struct UnmatchedRequest: Sendable, Hashable, CustomStringConvertible {
    /// The live connection (server id, e.g. `c1`).
    public var connection: String
    /// The request's action ("" when none could be read).
    public var action: String
    /// Its correlationId.
    public var correlationId: String
    /// Its `payload.data`, canonical compact JSON ("" when none).
    public var data: String

    /// `conn c1: camera.selfie.capture {"x":1} (id)`.
    public var description: String {
        "conn \(connection): \(action.isEmpty ? "(no action)" : action)\(data.isEmpty ? "" : " " + data) (\(correlationId))"
    }
}

/// Plays the recorded host side of one connection to a live web side: a state machine
/// that does no I/O (STYLE.md habit 2). The driver feeds it what the web side sends and
/// sends what it returns at the times it says.
///
/// Matching: a live request takes the first unused recorded request with the same
/// action and the same data (so the k-th of several equal requests gets the k-th
/// recorded answer); failing that, the first unused one with the same action; failing
/// that it is answered `unsupported` / `UNSUPPORTED_ACTION` and reported.
public struct PlaybackConnection: Sendable {
    /// One message to send, and when (epoch ns).
    public struct Output: Sendable, Hashable {
        /// When to send it (epoch ns, wall clock).
        public var at: Int64
        /// The message.
        public var bytes: [UInt8]
    }

    /// The script played.
    public let script: PlaybackScript
    /// How response delays and event offsets are scaled.
    public let pacing: ReplayPacing
    /// The live connection's id, for reports.
    public let connection: String
    /// Live requests answered from the recording.
    public private(set) var answered = 0
    /// Of those, answered by action only (no recorded request had the same data).
    public private(set) var matchedByActionOnly = 0
    /// Live requests with no recorded answer.
    public private(set) var unmatched: [UnmatchedRequest] = []
    private var used: [Bool]
    private var byAction: [String: [Int]] = [:]
    private var responsesSent = 0
    private var eventsReleased = 0

    /// Creates the player of `script` for live connection `connection`.
    public init(script: PlaybackScript, pacing: ReplayPacing, connection: String) {
        self.script = script
        self.pacing = pacing
        self.connection = connection
        used = Array(repeating: false, count: script.requests.count)
        for (i, r) in script.requests.enumerated() { byAction[r.action, default: []].append(i) }
    }

    /// Recorded requests no live request used.
    public var unused: Int { used.filter { !$0 }.count }

    /// The connection opened at `now` (epoch ns). Under `recorded` and `xN`: every
    /// recorded host event, at its recorded offset (scaled). Under `asap`: the events the
    /// recording sent before any response, at once; each later one goes right after the
    /// response it followed in the recording.
    public mutating func start(now: Int64) -> [Output] {
        guard pacing.isASAP else {
            eventsReleased = script.events.count
            return script.events.map { e in
                let at = now + pacing.scale(e.offset)
                return Output(at: at, bytes: Self.rewrite(e.bytes, correlationId: nil, at: at))
            }
        }
        return releaseEvents(at: now)
    }

    /// Under `asap`: the events whose recorded predecessors have all been sent.
    private mutating func releaseEvents(at time: Int64) -> [Output] {
        var out: [Output] = []
        while eventsReleased < script.events.count && script.events[eventsReleased].afterResponses <= responsesSent {
            out.append(Output(at: time, bytes: Self.rewrite(script.events[eventsReleased].bytes, correlationId: nil, at: time)))
            eventsReleased += 1
        }
        return out
    }

    /// The web side sent `bytes` at `now` (epoch ns): the answers to send, if it is a request.
    public mutating func receive(_ bytes: [UInt8], now: Int64) -> [Output] {
        let m = RecordedMessage(time: now, direction: .webToHost, bytes: bytes)
        guard m.kind == .request, let cid = m.correlationId else { return [] }
        let action = m.action ?? ""
        let data = PlaybackScript.canonicalData(bytes)
        let candidates = byAction[action] ?? []
        var pick = candidates.first { !used[$0] && script.requests[$0].data == data }
        if pick == nil, let any = candidates.first(where: { !used[$0] }) {
            pick = any
            matchedByActionOnly += 1
        }
        guard let i = pick else {
            if unmatched.count < ReplayLimits.maxUnmatchedListed {
                unmatched.append(UnmatchedRequest(connection: connection, action: action, correlationId: cid, data: data))
            }
            return [Output(at: now, bytes: Self.unsupported(cid: cid, action: action, at: now))]
        }
        used[i] = true
        answered += 1
        var out: [Output] = []
        for r in script.requests[i].responses {
            let at = now + (pacing.isASAP ? 0 : pacing.scale(r.delay))
            out.append(Output(at: at, bytes: Self.rewrite(r.bytes, correlationId: cid, at: at)))
            responsesSent += 1
            if pacing.isASAP { out += releaseEvents(at: at) }
        }
        return out
    }

    /// The recorded message with the live correlationId (when given) and a fresh
    /// timestamp; unreadable messages are sent as recorded.
    static func rewrite(_ bytes: [UInt8], correlationId: String?, at: Int64) -> [UInt8] {
        guard case .object(var o)? = try? JSONParser(limits: ReplayLimits.json).value(bytes) else { return bytes }
        if let correlationId { o.set("correlationId", .string(correlationId)) }
        if o["timestamp"] != nil { o.set("timestamp", .integer(at / 1_000_000)) }
        return JSONWriter().bytes(.object(o))
    }

    /// `unsupported` / `UNSUPPORTED_ACTION` for a request the recording cannot answer
    /// (action `invalid` when the request's own cannot be encoded).
    static func unsupported(cid: String, action: String, at: Int64) -> [UInt8] {
        func make(_ action: String) -> Envelope {
            Envelope.response(
                correlationId: cid, action: Action(rawValue: action), status: .unsupported,
                error: ErrorPayload(code: .unsupportedAction,
                                    message: "no recorded response matches this request (bridgescope replay --as-host)",
                                    recoverable: false),
                timestamp: at / 1_000_000)
        }
        if let bytes = try? EnvelopeEncoder().encode(make(action.isEmpty ? "invalid" : action), direction: .hostToWeb) {
            return bytes
        }
        return JSONWriter().bytes(make("invalid").jsonValue)
    }
}
