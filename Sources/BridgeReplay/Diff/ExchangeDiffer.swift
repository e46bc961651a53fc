import BridgeJSON

/// Compares a connection's recorded exchange with a replayed one (pure): responses
/// paired by request key (acknowledgements with acknowledgements, final responses with
/// final responses, in order), host events and other host messages paired by action and
/// order.
struct ExchangeDiffer: Sendable {
    /// Message comparison rules.
    public var rules: NormalizationRules
    /// Latency tolerance; nil: latencies are not compared.
    public var timing: TimingTolerance?

    /// Creates a differ.
    public init(rules: NormalizationRules = .default, timing: TimingTolerance? = TimingTolerance()) {
        self.rules = rules
        self.timing = timing
    }

    /// The divergences of `actual` from `expected` on connection `connection`.
    /// Requests in `uncompared`, and requests `actual` never sent, are left out; with
    /// `reportExtraHostMessages` false, host messages only the replay has are not reported.
    public func diff(expected: Exchange, actual: Exchange, connection: String, uncompared: Set<PairKey> = [],
                     reportExtraHostMessages: Bool = true) -> [Divergence] {
        var out: [Divergence] = []
        let messages = MessageDiffer(rules: rules)
        for (key, request) in expected.requests where !uncompared.contains(key) {
            guard let sent = actual.request(key) else { continue }
            let action = request.message.action
            let e = expected.responses[key] ?? [], a = actual.responses[key] ?? []
            for acks in [false, true] {
                let x = e.filter { $0.message.isFinalResponse != acks }, y = a.filter { $0.message.isFinalResponse != acks }
                pair(x, y, connection: connection, key: key, action: action, messages: messages, &out)
            }
            if let timing, let ef = e.first(where: \.message.isFinalResponse), let af = a.first(where: \.message.isFinalResponse) {
                let el = ef.time - request.time, al = af.time - sent.time
                if !timing.accepts(expected: el, actual: al) {
                    out.append(Divergence(connection: connection, kind: .timing, correlationId: key.description, action: action,
                                          expected: Self.ms(el), actual: Self.ms(al),
                                          message: "answered in \(Self.ms(al)), recorded \(Self.ms(el))"))
                }
            }
        }
        var seen = Set<PairKey>()
        for key in expected.unsolicited + actual.unsolicited where seen.insert(key).inserted {
            pair(expected.responses[key] ?? [], actual.responses[key] ?? [], connection: connection, key: key,
                 action: nil, messages: messages, &out)
        }
        var groups = Set<String>()
        for g in expected.hostGroups + actual.hostGroups where groups.insert(g).inserted {
            let x = expected.hostMessages[g] ?? [], y = actual.hostMessages[g] ?? []
            for i in 0..<max(x.count, y.count) {
                let m = (i < x.count ? x[i] : y[i]).message
                let what = "\(m.kind == .event ? "event" : "host message") \(m.action ?? "(no action)") #\(i + 1)"
                if i >= y.count {
                    out.append(Divergence(connection: connection, kind: .missingEvent, action: m.action,
                                          message: "recorded \(what) did not come"))
                } else if i >= x.count {
                    if reportExtraHostMessages {
                        out.append(Divergence(connection: connection, kind: .extraEvent, action: m.action,
                                              message: "\(what) was not in the recording"))
                    }
                } else {
                    for d in messages.diff(x[i].message, y[i].message) {
                        out.append(Divergence(connection: connection, kind: .dataDiffers, action: m.action, pointer: d.pointer,
                                              expected: d.expected, actual: d.actual,
                                              message: "\(what) differs at \(d.pointer.isEmpty ? "(whole message)" : d.pointer)"))
                    }
                }
            }
        }
        return out
    }

    private func pair(_ x: [TimedMessage], _ y: [TimedMessage], connection: String, key: PairKey, action: String?,
                      messages: MessageDiffer, _ out: inout [Divergence]) {
        for i in 0..<max(x.count, y.count) {
            let cid = key.description
            if i >= y.count {
                let m = x[i].message
                out.append(Divergence(connection: connection, kind: .missingResponse, correlationId: cid, action: action ?? m.action,
                                      expected: m.status, message: "recorded \(m.status ?? "?") response did not come"))
            } else if i >= x.count {
                let m = y[i].message
                out.append(Divergence(connection: connection, kind: .extraResponse, correlationId: cid, action: action ?? m.action,
                                      actual: m.status, message: "\(m.status ?? "?") response was not in the recording"))
            } else if x[i].message.status != y[i].message.status && !rules.ignores(["payload", "status"], isResponse: true) {
                let detail = Self.errorCode(y[i].message).map { " (\($0))" } ?? ""
                out.append(Divergence(connection: connection, kind: .statusDiffers, correlationId: cid, action: action,
                                      pointer: "/payload/status", expected: x[i].message.status, actual: y[i].message.status,
                                      message: "status \(y[i].message.status ?? "?")\(detail), recorded \(x[i].message.status ?? "?")"))
            } else {
                for d in messages.diff(x[i].message, y[i].message) {
                    out.append(Divergence(connection: connection, kind: .dataDiffers, correlationId: cid, action: action,
                                          pointer: d.pointer, expected: d.expected, actual: d.actual,
                                          message: "differs at \(d.pointer.isEmpty ? "(whole message)" : d.pointer): \(d.actual), recorded \(d.expected)"))
                }
            }
        }
    }

    /// `payload.error.code` of a message, if it has one.
    static func errorCode(_ m: RecordedMessage) -> String? {
        guard let v = try? JSONParser(limits: ReplayLimits.json).value(m.bytes) else { return nil }
        return v["payload"]?["error"]?["code"]?.stringValue
    }

    /// `123.4 ms`.
    static func ms(_ ns: Int64) -> String {
        let tenths = (ns + 50_000) / 100_000
        return "\(tenths / 10).\(abs(tenths % 10)) ms"
    }
}
