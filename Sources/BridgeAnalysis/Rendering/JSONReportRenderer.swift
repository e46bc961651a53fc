import BridgeJSON
import BridgeProtocol

/// `--format json`: the versioned report schema of `docs/REPORT.md`.
public struct JSONReportRenderer: Sendable {
    /// The options (threshold for the verdicts).
    public var options: RenderOptions

    /// Creates a renderer.
    public init(options: RenderOptions = RenderOptions()) {
        self.options = options
    }

    /// The whole batch as indented JSON text (ends with a newline): the bytes of
    /// ``write(_:chunkBytes:to:)`` gathered.
    public func render(_ batch: AnalysisBatch) -> String {
        var bytes: [UInt8] = []
        write(batch) { (chunk: [UInt8]) throws(Never) in bytes.append(contentsOf: chunk) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The whole batch as a JSON value.
    public func value(_ batch: AnalysisBatch) -> JSONValue {
        obj(head(batch) + [("sessions", .array(batch.reports.map(session)))] + tail(batch))
    }

    /// The report's members before `sessions`.
    func head(_ batch: AnalysisBatch) -> [(String, JSONValue)] {
        [
            ("bridgescopeReport", .integer(Int64(AnalysisReport.schemaVersion))),
            ("failOn", .string(options.threshold.rawValue)),
            ("verdict", .string(options.verdict(batch))),
            ("acceptIncomplete", .bool(options.acceptIncomplete)),
        ]
    }

    /// The report's members after `sessions`.
    func tail(_ batch: AnalysisBatch) -> [(String, JSONValue)] {
        [
            ("failures", .array(batch.failures.map {
                obj([("path", .string($0.path)), ("code", .string($0.error.code.rawValue)), ("message", .string($0.error.message))])
            })),
            ("aggregate", aggregate(batch.aggregate)),
        ]
    }

    func obj(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(JSONObject(members.map { JSONObject.Member(key: $0.0, value: $0.1) }))
    }

    func num(_ n: Int) -> JSONValue { .integer(Int64(n)) }
    func ms(_ micros: Int64) -> JSONValue { .number(JSONNumber(uncheckedLexeme: Format.ms(micros: micros))) }
    func opt(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
    func opt(_ n: Int64?) -> JSONValue { n.map { .integer($0) } ?? .null }

    func counts(_ list: [RuleCount], sessions: [RuleID: Int]? = nil) -> JSONValue {
        .array(list.map { c in
            var m: [(String, JSONValue)] = [("rule", .string(c.rule.rawValue)), ("slug", .string(c.slug)),
                                            ("severity", .string(c.severity.rawValue)), ("count", num(c.count))]
            if let sessions { m.append(("sessions", num(sessions[c.rule] ?? 0))) }
            return obj(m)
        })
    }

    func session(_ r: AnalysisReport) -> JSONValue {
        obj(sessionHead(r) + [
            ("findings", .array(r.findings.map(finding))),
            ("findingsOmitted", num(r.findingsOmitted)),
            ("latency", .array(r.latency.map(latency))),
            ("connections", .array(r.connections.map(connection))),
        ])
    }

    /// A session's members before `findings`.
    func sessionHead(_ r: AnalysisReport) -> [(String, JSONValue)] {
        let s = r.summary
        return [
            ("source", .string(r.source)),
            ("verdict", .string(options.verdict(r))),
            ("summary", obj([
                ("records", num(s.records)), ("messages", num(s.messages)), ("captureEvents", num(s.captureEvents)),
                ("bytes", .integer(s.bytes)), ("undecodable", num(s.undecodable)), ("connections", num(r.connections.count)),
                ("requests", num(s.requests)), ("unanswered", num(s.unanswered)),
                ("firstTime", opt(s.firstTime)), ("lastTime", opt(s.lastTime)), ("durationMs", ms(s.duration / 1000)),
                ("errors", num(r.count(of: .error))), ("warnings", num(r.count(of: .warning))), ("infos", num(r.count(of: .info))),
            ])),
            ("timeouts", obj([
                ("defaultMs", .integer(r.timeouts.defaultMilliseconds)),
                ("perAction", obj(r.timeouts.perAction.keys.sorted().map { ($0, .integer(r.timeouts.perAction[$0]!)) })),
            ])),
            ("ruleCounts", counts(r.ruleCounts)),
        ]
    }

    func finding(_ f: ReportFinding) -> JSONValue {
        obj([
            ("rule", .string(f.rule.rawValue)), ("slug", .string(f.slug)), ("severity", .string(f.severity.rawValue)),
            ("connection", opt(f.connection)), ("records", .array(f.records.map(num))),
            ("correlationId", opt(f.correlationId)), ("offset", opt(f.offset.map(Int64.init))),
            ("time", opt(f.time)), ("message", .string(f.message)),
        ])
    }

    func latency(_ l: ActionLatency) -> JSONValue {
        obj([
            ("action", .string(l.action)), ("count", num(l.count)),
            ("p50Ms", ms(l.p50)), ("p90Ms", ms(l.p90)), ("p99Ms", ms(l.p99)), ("maxMs", ms(l.max)),
            ("slowest", .array(l.slowest.map {
                obj([("correlationId", .string($0.correlationId)), ("connection", .string($0.connection)),
                     ("ms", ms($0.micros)), ("record", num($0.record)), ("source", opt($0.source))])
            })),
            ("buckets", .array(l.buckets.map { obj([("leMs", opt($0.upperMillis)), ("count", num($0.count))]) })),
        ])
    }

    func connection(_ c: ConnectionReport) -> JSONValue {
        obj([
            ("id", .string(c.id)), ("firstTime", .integer(c.firstTime)), ("lastTime", .integer(c.lastTime)),
            ("webMessages", num(c.webMessages)), ("hostMessages", num(c.hostMessages)),
            ("requests", num(c.requests)), ("unanswered", num(c.unanswered)),
            ("outcome", obj([("state", .string(c.outcome.state)), ("detail", opt(c.outcome.detail))])),
            ("steps", .array(c.steps.map { step($0, origin: c.firstTime) })),
            ("stepsOmitted", num(c.stepsOmitted)),
        ])
    }

    func step(_ s: JourneyStep, origin: Int64) -> JSONValue {
        obj([
            ("kind", .string(s.kind.rawValue)), ("action", .string(s.action)), ("correlationId", opt(s.correlationId)),
            ("direction", .string(s.direction.rawValue)), ("start", .integer(s.start)),
            ("atMs", ms((s.start - origin) / 1000)),
            ("durationMs", s.duration.map { ms($0 / 1000) } ?? .null),
            ("acknowledgedMs", s.acknowledged.map { ms(($0 - s.start) / 1000) } ?? .null),
            ("outcome", opt(s.outcome)), ("errorCode", opt(s.errorCode)), ("detail", opt(s.detail)),
            ("records", .array(s.records.map(num))), ("findings", .array(s.findings.map { .string($0.rawValue) })),
        ])
    }

    func aggregate(_ a: AggregateReport) -> JSONValue {
        obj([
            ("sessions", num(a.sessions)), ("failedInputs", num(a.failedInputs)), ("records", num(a.records)),
            ("messages", num(a.messages)), ("requests", num(a.requests)), ("unanswered", num(a.unanswered)),
            ("ruleCounts", counts(a.ruleCounts, sessions: a.sessionsPerRule)),
            ("latency", .array(a.latency.map(latency))),
        ])
    }
}
