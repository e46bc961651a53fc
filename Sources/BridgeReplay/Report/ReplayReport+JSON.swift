import BridgeJSON

extension ReplayReport {
    /// The report as one JSON object (schema in docs/REPLAY.md, "JSON report"), compact,
    /// with a final newline.
    public func renderJSON() -> String {
        func str(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        let connections: [JSONValue] = self.connections.map { c in
            .object(JSONObject([
                .init(key: "id", value: .string(c.id)),
                .init(key: "sent", value: .integer(Int64(c.sent))),
                .init(key: "planned", value: .integer(Int64(c.planned))),
                .init(key: "received", value: .integer(Int64(c.received))),
                .init(key: "timedOut", value: .integer(Int64(c.timedOut))),
                .init(key: "uncompared", value: .integer(Int64(c.uncompared))),
                .init(key: "error", value: str(c.error)),
                .init(key: "divergences", value: .array(c.divergences.map { d in
                    .object(JSONObject([
                        .init(key: "kind", value: .string(d.kind.rawValue)),
                        .init(key: "correlationId", value: str(d.correlationId)),
                        .init(key: "action", value: str(d.action)),
                        .init(key: "pointer", value: str(d.pointer)),
                        .init(key: "expected", value: str(d.expected)),
                        .init(key: "actual", value: str(d.actual)),
                        .init(key: "message", value: .string(d.message)),
                    ]))
                })),
            ]))
        }
        var counts = JSONObject()
        for (kind, n) in countsByKind { counts.set(kind.rawValue, .integer(Int64(n))) }
        var root = JSONObject([
            .init(key: "bridgescope", value: "replay-report"),
            .init(key: "reportVersion", value: 1),
            .init(key: "archive", value: .string(archive)),
            .init(key: "target", value: .string(target)),
            .init(key: "pace", value: .string(pacing.description)),
            .init(key: "runs", value: .integer(Int64(runs))),
            .init(key: "normalization", value: .object(JSONObject([
                .init(key: "defaults", value: .array(defaultRules.map { .string($0) })),
                .init(key: "ignored", value: .array(ignored.map { .string($0) })),
                .init(key: "volatile", value: .array(volatile.map { .string($0) })),
            ]))),
            .init(key: "summary", value: .object(JSONObject([
                .init(key: "connections", value: .integer(Int64(self.connections.count))),
                .init(key: "sent", value: .integer(Int64(sent))),
                .init(key: "received", value: .integer(Int64(received))),
                .init(key: "divergences", value: .integer(Int64(divergenceCount))),
                .init(key: "byKind", value: .object(counts)),
                .init(key: "skippedMessages", value: .integer(Int64(skippedMessages))),
                .init(key: "exitStatus", value: .integer(Int64(exitStatus))),
            ]))),
            .init(key: "connections", value: .array(connections)),
            .init(key: "skipped", value: .array(skipped.map { s in
                .object(JSONObject([
                    .init(key: "connection", value: str(s.connection)),
                    .init(key: "messages", value: .integer(Int64(s.messages))),
                    .init(key: "reason", value: .string(s.reason)),
                ]))
            })),
            .init(key: "archiveFindings", value: .array(archiveFindings.map { .string($0) })),
        ])
        if let lateness {
            root.set("sendLatenessNs", .object(JSONObject([
                .init(key: "p50", value: .integer(lateness.p50)), .init(key: "p99", value: .integer(lateness.p99)),
            ])))
        }
        return JSONWriter().string(.object(root)) + "\n"
    }
}
