import BridgeJSON

extension ConformanceReport {
    /// `{"bridgescope":"conform","hosts":[{"target","strict","counts","cases":[{"id",
    /// "section","title","verdict","choices"?,"rule"?,"reason"?,"detail"?,"ms","exchange"}]}]}`.
    public static func json(_ runs: [ConformanceRun]) -> String {
        let hosts: [JSONValue] = runs.map { run in
            var counts = JSONObject()
            for (k, v) in run.counts.sorted(by: { $0.key < $1.key }) { counts.set(k, .integer(Int64(v))) }
            let cases: [JSONValue] = run.results.map { r in
                var o = JSONObject([
                    .init(key: "id", value: .string(r.testCase.id)),
                    .init(key: "section", value: .string(r.testCase.section)),
                    .init(key: "title", value: .string(r.testCase.title)),
                    .init(key: "expectation", value: .string(r.testCase.expectation)),
                    .init(key: "verdict", value: .string(r.verdict.name)),
                ])
                switch r.verdict {
                case .passWithChoice(let c): o.set("choices", .array(c.map { .string($0.rawValue) }))
                case .fail(let rule, let reason): o.set("rule", .string(rule)); o.set("reason", .string(reason))
                case .informational(let s), .undecided(let s): o.set("detail", .string(s))
                case .pass: break
                }
                o.set("ms", .integer(Int64(r.milliseconds)))
                o.set("exchange", .array(r.exchange.map { l in
                    .object(JSONObject([.init(key: "dir", value: .string(l.direction == ">" ? "w2h" : "h2w")),
                                        .init(key: "atMs", value: .integer(l.atMs)),
                                        .init(key: "text", value: .string(l.text))]))
                }))
                return .object(o)
            }
            return .object(JSONObject([
                .init(key: "target", value: .string(run.target)),
                .init(key: "strict", value: .bool(run.strict)),
                .init(key: "counts", value: .object(counts)),
                .init(key: "cases", value: .array(cases)),
            ]))
        }
        return JSONWriter().string(.object(JSONObject([
            .init(key: "bridgescope", value: .string("conform")),
            .init(key: "hosts", value: .array(hosts)),
        ]))) + "\n"
    }
}
