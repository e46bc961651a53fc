/// Identifies one request of a connection: its correlationId and how many requests
/// with that id the web side sent before it (so a reused id is still told apart).
/// Responses to an id that was never requested get occurrence -1.
public struct PairKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The request's correlationId.
    public var correlationId: String
    /// 0 for the first request with this id, 1 for the second, ...; -1: never requested.
    var occurrence: Int

    /// Creates a key.
    public init(_ correlationId: String, _ occurrence: Int = 0) {
        self.correlationId = correlationId
        self.occurrence = occurrence
    }

    /// Orders by id, then occurrence.
    public static func < (a: PairKey, b: PairKey) -> Bool {
        (a.correlationId, a.occurrence) < (b.correlationId, b.occurrence)
    }

    /// `id` or `id#2` for a reused id.
    public var description: String {
        occurrence > 0 ? "\(correlationId)#\(occurrence + 1)" : correlationId
    }
}

/// A message with the time it was sent or received (ns).
public struct TimedMessage: Sendable, Hashable {
    /// When (ns; only differences within one exchange are meaningful).
    public var time: Int64
    /// The message.
    public var message: RecordedMessage
}

/// One side's view of a connection's traffic, arranged for comparison: each request with
/// the responses paired to it by correlationId, and the other host messages (events,
/// invalid messages) grouped by action in order. Built the same way for the recording
/// and for each replay run, so the two can be compared position by position.
public struct Exchange: Sendable {
    /// Requests in the order they were sent, with their send time.
    public private(set) var requests: [(key: PairKey, sent: TimedMessage)] = []
    /// Every message sent (true) and received (false), in the order they crossed, for the
    /// protocol model's judgement of the target (``ProtocolJudge``); kept only when
    /// ``keepsTimeline`` (what the target answered, not the recording).
    public private(set) var timeline: [(sent: Bool, message: TimedMessage)] = []
    /// Whether ``timeline`` is kept.
    let keepsTimeline: Bool
    /// Responses by request, in arrival order (key occurrence -1: unsolicited).
    public private(set) var responses: [PairKey: [TimedMessage]] = [:]
    /// Keys of unsolicited responses, in arrival order of their first response.
    public private(set) var unsolicited: [PairKey] = []
    /// Host messages that are not responses, grouped by `type action` (`event host.ready`,
    /// `other ?`), in arrival order.
    public private(set) var hostMessages: [String: [TimedMessage]] = [:]
    /// Group names of ``hostMessages`` in order of first appearance.
    private(set) var hostGroups: [String] = []
    /// Position of each request in ``requests``.
    private(set) var requestIndex: [PairKey: Int] = [:]
    private var latest: [String: Int] = [:]

    /// An empty exchange.
    public init() { keepsTimeline = false }

    /// An exchange that also keeps its ``timeline``.
    init(keepingTimeline: Bool) { keepsTimeline = keepingTimeline }

    /// Records a web-to-host message; returns its key when it is a request with a correlationId.
    @discardableResult
    public mutating func sent(_ message: RecordedMessage, at time: Int64) -> PairKey? {
        if keepsTimeline { timeline.append((true, TimedMessage(time: time, message: message))) }
        guard message.kind == .request, let cid = message.correlationId else { return nil }
        let n = latest[cid].map { $0 + 1 } ?? 0
        latest[cid] = n
        let key = PairKey(cid, n)
        requestIndex[key] = requests.count
        requests.append((key, TimedMessage(time: time, message: message)))
        return key
    }

    /// Records a host-to-web message; returns the key it was paired to and its ordinal
    /// among that key's responses, when it is a response.
    @discardableResult
    public mutating func received(_ message: RecordedMessage, at time: Int64) -> (key: PairKey, ordinal: Int)? {
        let timed = TimedMessage(time: time, message: message)
        if keepsTimeline { timeline.append((false, timed)) }
        if message.kind == .response, let cid = message.correlationId {
            let key = PairKey(cid, latest[cid] ?? -1)
            if key.occurrence < 0 && responses[key] == nil { unsolicited.append(key) }
            responses[key, default: []].append(timed)
            return (key, responses[key]!.count - 1)
        }
        let group = Self.group(of: message)
        if hostMessages[group] == nil { hostGroups.append(group) }
        hostMessages[group, default: []].append(timed)
        return nil
    }

    /// The group a non-response host message is compared within.
    static func group(of m: RecordedMessage) -> String {
        "\(m.kind.rawValue) \(m.action ?? "?")"
    }

    /// The request sent with `key`, if any.
    public func request(_ key: PairKey) -> TimedMessage? {
        requestIndex[key].map { requests[$0].sent }
    }
}
