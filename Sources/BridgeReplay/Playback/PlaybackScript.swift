import BridgeJSON

/// The host side of one recorded connection, arranged for playing it back
/// (`--as-host`): each recorded request with the responses it got and how long after it
/// they came, and the host's other messages (events) with their offsets from the start.
public struct PlaybackScript: Sendable {
    /// A recorded request and its answers.
    public struct Request: Sendable {
        /// `payload.action` ("" when it had none).
        public var action: String
        /// `payload.data` in canonical form (sorted keys, compact), "" when absent.
        public var data: String
        /// The responses, in order, each with its delay after the request (ns).
        public var responses: [(delay: Int64, bytes: [UInt8])]
    }

    /// The recorded connection's id.
    public var id: String
    /// Recorded requests, in order.
    public var requests: [Request] = []
    /// Host messages that are not responses, each with its offset from the start (ns)
    /// and the number of responses the recorded host had sent before it.
    public var events: [(offset: Int64, afterResponses: Int, bytes: [UInt8])] = []

    /// Reads the script of `connection`.
    public init(connection: RecordedConnection) {
        id = connection.id
        var exchange = Exchange()
        var indexOfKey: [PairKey: Int] = [:]
        var responses = 0
        for m in connection.messages {
            if m.direction == .webToHost {
                guard let key = exchange.sent(m, at: m.time) else { continue }
                indexOfKey[key] = requests.count
                requests.append(Request(action: m.action ?? "", data: Self.canonicalData(m.bytes), responses: []))
            } else if let (key, _) = exchange.received(m, at: m.time) {
                responses += 1
                guard let i = indexOfKey[key], let sent = exchange.request(key) else { continue }
                requests[i].responses.append((max(0, m.time - sent.time), m.bytes))
            } else {
                events.append((max(0, m.time - connection.startTime), responses, m.bytes))
            }
        }
    }

    /// `payload.data` of a message in canonical form (sorted keys, compact); "" when
    /// absent or unreadable.
    static func canonicalData(_ bytes: [UInt8]) -> String {
        guard let v = try? JSONParser(limits: ReplayLimits.json).value(bytes), let data = v["payload"]?["data"] else { return "" }
        return JSONWriter(sortedKeys: true).string(data)
    }
}
