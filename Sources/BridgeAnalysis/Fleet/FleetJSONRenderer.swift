import BridgeJSON

/// `analyze --fleet --format json`: the fleet report of docs/FLEET.md as indented JSON.
public struct FleetJSONRenderer: Sendable {
    /// The fleet report schema version.
    public static let schemaVersion = 1

    /// Creates a renderer.
    public init() {}

    /// The report as JSON text (ends with a newline).
    public func render(_ r: FleetReport) -> String {
        PrettyJSON.string(value(r))
    }

    /// The report as a JSON value.
    public func value(_ r: FleetReport) -> JSONValue {
        obj([
            ("bridgescopeFleet", num(Self.schemaVersion)),
            ("sessions", num(r.sessions)), ("journeys", num(r.journeys)), ("records", num(r.records)),
            ("messages", num(r.messages)), ("requests", num(r.requests)), ("unanswered", num(r.unanswered)),
            ("outsideWindow", num(r.outsideWindow)),
            ("firstSessionTime", r.firstSessionTime.map { .integer($0) } ?? .null),
            ("lastSessionTime", r.lastSessionTime.map { .integer($0) } ?? .null),
            ("seconds", .number(JSONNumber(uncheckedLexeme: String(Double(Int(r.seconds * 1000)) / 1000)))),
            ("outcomes", obj(r.outcomes.keys.sorted().map { ($0, num(r.outcomes[$0]!)) })),
            ("latency", latency(r.latency)),
            ("rules", .array(r.rules.map { rule in
                obj([("rule", .string(rule.rule.rawValue)), ("slug", .string(rule.slug)), ("severity", .string(rule.severity.rawValue)),
                     ("count", num(rule.count)), ("sessions", num(rule.sessions)), ("examples", .array(rule.examples.map { .string($0) }))])
            })),
            ("worst", .array(r.worst.map { s in
                obj([("path", .string(s.path)), ("errors", num(s.errors)), ("warnings", num(s.warnings)),
                     ("unanswered", num(s.unanswered)), ("failedJourneys", num(s.failedJourneys)),
                     ("rules", .array(s.topRules.map { .string($0) }))])
            })),
            ("cuts", .array(r.cuts.map { c in
                obj([("dimension", .string(c.dimension.rawValue)), ("value", .string(c.value)), ("sessions", num(c.sessions)),
                     ("latency", latency(c.latency))])
            })),
            ("failures", .array(r.failures.map {
                obj([("path", .string($0.path)), ("code", .string($0.error.code.rawValue)), ("message", .string($0.error.message))])
            })),
            ("damaged", .array(r.damaged.map { .string($0) })),
        ])
    }

    func latency(_ list: [ActionLatency]) -> JSONValue {
        .array(list.map { l in
            obj([("action", .string(l.action)), ("count", num(l.count)), ("p50Ms", ms(l.p50)), ("p90Ms", ms(l.p90)),
                 ("p99Ms", ms(l.p99)), ("maxMs", ms(l.max)),
                 ("slowest", .array(l.slowest.map { s in
                     obj([("source", s.source.map { .string($0) } ?? .null), ("correlationId", .string(s.correlationId)),
                          ("connection", .string(s.connection)), ("record", num(s.record)), ("ms", ms(s.micros))])
                 }))])
        })
    }

    func obj(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(JSONObject(members.map { JSONObject.Member(key: $0.0, value: $0.1) }))
    }

    func num(_ n: Int) -> JSONValue { .integer(Int64(n)) }
    func ms(_ micros: Int64) -> JSONValue { .number(JSONNumber(uncheckedLexeme: Format.ms(micros: micros))) }
}
