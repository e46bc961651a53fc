import BridgeAnalysis
import BridgeProtocol
import Foundation

/// Turns one analysed session into OTLP traces (docs/OTLP.md, "Mapping"): per
/// connection (journey) one `ResourceSpans` with one trace, a root span `journey` from
/// the connection's first to its last record, and a child span per request from its
/// send to its final response (to the session's end when unanswered); events and
/// capture events are span events of the root at their recorded times, findings are
/// span events of the request they name, else of the root. Every time is the recorded
/// capture time (ns since the epoch), never the export time. Pure: no I/O.
struct TraceMapper {
    typealias ResourceSpans = Opentelemetry_Proto_Trace_V1_ResourceSpans
    typealias Span = Opentelemetry_Proto_Trace_V1_Span
    typealias KeyValue = Opentelemetry_Proto_Common_V1_KeyValue

    /// The version written as the scope's and the SDK's version.
    static let toolVersion = "0.1.0"
    /// `service.name` of every resource.
    static let serviceName = "gbgbridge-journey"

    func resourceSpans(for session: SessionTrace) -> [ResourceSpans] {
        let report = session.report
        let identity = session.identity
        var byConnection: [String: [ReportFinding]] = [:]
        let first = report.connections.first?.id
        for f in report.findings {
            let conn = f.connection.flatMap { c in report.connections.contains { $0.id == c } ? c : nil } ?? first
            if let conn { byConnection[conn, default: []].append(f) }
        }
        return report.connections.map { c in
            var rs = ResourceSpans()
            rs.resource.attributes = resource(session, connection: c)
            var scope = Opentelemetry_Proto_Trace_V1_ScopeSpans()
            scope.scope.name = "bridgescope"
            scope.scope.version = Self.toolVersion
            scope.spans = spans(c, identity: identity, findings: byConnection[c.id] ?? [])
            rs.scopeSpans = [scope]
            return rs
        }
    }

    func resource(_ session: SessionTrace, connection c: ConnectionReport) -> [KeyValue] {
        var a: [KeyValue] = [
            Self.kv(.serviceName, Self.serviceName),
            Self.kv(.sdkName, "bridgescope"), Self.kv(.sdkLanguage, "swift"), Self.kv(.sdkVersion, Self.toolVersion),
            Self.kv(.sessionFile, session.report.source),
        ]
        if let v = c.hostVersion { a.append(Self.kv(.serviceVersion, v)) }
        if let e = c.environment { a.append(Self.kv(.deploymentEnvironment, e)) }
        if let h = session.header {
            a.append(Self.kv(.sessionSource, h.source))
            if let host = h.host { a.append(Self.kv(.recorderHost, host)) }
            a.append(Self.kv(.recorderVersion, h.toolVersion))
            a.append(Self.kv(.sessionStart, Int(h.startTime)))
        }
        return a
    }

    func spans(_ c: ConnectionReport, identity: String, findings: [ReportFinding]) -> [Span] {
        let trace = TraceIdentity.traceID(session: identity, connection: c.id)
        var root = Span()
        root.traceID = Data(trace)
        root.spanID = Data(TraceIdentity.rootSpanID(trace: trace))
        root.name = "journey"
        root.kind = .internal
        root.startTimeUnixNano = UInt64(clamping: c.firstTime)
        root.endTimeUnixNano = UInt64(clamping: Swift.max(c.firstTime, c.lastTime))
        root.attributes = [
            Self.kv(.connection, c.id), Self.kv(.journeyOutcome, c.outcome.state),
            Self.kv(.journeyRequests, c.requests), Self.kv(.journeyUnanswered, c.unanswered),
            Self.kv(.journeyWebMessages, c.webMessages), Self.kv(.journeyHostMessages, c.hostMessages),
        ]
        if let d = c.outcome.detail { root.attributes.append(Self.kv(.journeyDetail, d)) }
        if c.stepsOmitted > 0 { root.attributes.append(Self.kv(.journeyStepsOmitted, c.stepsOmitted)) }
        if c.outcome.state == "error" || c.outcome.state == "incomplete" {
            root.status.code = .error
            root.status.message = "journey \(c.outcome.state)\(c.outcome.detail.map { ": \($0)" } ?? "")"
        }
        // Fields of the generated messages are computed properties over a shared storage
        // object: appending to `span.events` in place copies the array every time
        // (quadratic in a long journey). Events are gathered here and assigned once.
        var spans = [root]
        var events: [[Opentelemetry_Proto_Trace_V1_Span.Event]] = [[]]
        var byRecord: [Int: Int] = [:]
        for step in c.steps {
            if step.kind == .request {
                let s = request(step, connection: c, trace: trace, parent: root.spanID)
                // Findings cite the request or one of its responses.
                for r in step.records { byRecord[r] = spans.count }
                events.append(s.events)
                spans.append(s)
            } else {
                events[0].append(event(step))
            }
        }
        for f in findings {
            var e = Opentelemetry_Proto_Trace_V1_Span.Event()
            e.name = "finding"
            e.timeUnixNano = UInt64(clamping: f.time ?? c.lastTime)
            var a = [
                Self.kv(.findingRule, f.rule.rawValue), Self.kv(.findingSlug, f.slug),
                Self.kv(.findingSeverity, f.severity.rawValue), Self.kv(.findingMessage, f.message),
            ]
            if !f.records.isEmpty { a.append(Self.kv(.records, f.records)) }
            if let id = f.correlationId { a.append(Self.kv(.correlationId, id)) }
            e.attributes = a
            let target = f.records.lazy.compactMap { byRecord[$0] }.first ?? 0
            events[target].append(e)
        }
        for i in spans.indices where events[i].count != spans[i].events.count { spans[i].events = events[i] }
        return spans
    }

    func request(_ step: JourneyStep, connection c: ConnectionReport, trace: [UInt8], parent: Data) -> Span {
        var s = Span()
        s.traceID = Data(trace)
        s.spanID = Data(TraceIdentity.requestSpanID(trace: trace, record: step.records.first ?? 0))
        s.parentSpanID = parent
        s.name = step.action
        s.kind = .client
        s.startTimeUnixNano = UInt64(clamping: step.start)
        s.endTimeUnixNano = UInt64(clamping: Swift.max(step.start, step.end ?? c.lastTime))
        let outcome = step.outcome ?? "unanswered"
        var a = [
            Self.kv(.rpcSystem, "gbgbridge"), Self.kv(.rpcMethod, step.action),
            Self.kv(.action, step.action), Self.kv(.connection, c.id), Self.kv(.status, outcome),
            Self.kv(.records, step.records),
        ]
        if let id = step.correlationId { a.append(Self.kv(.correlationId, id)) }
        if let code = step.errorCode { a.append(Self.kv(.errorCode, code)) }
        if let r = step.recoverable { a.append(Self.kv(.recoverable, r)) }
        if let d = step.detail { a.append(Self.kv(.detail, d)) }
        a.append(Self.kv(.busy, step.errorCode == ErrorCode.busy.rawValue))
        a.append(Self.kv(.late, step.findings.contains(.lateResponse)))
        a.append(Self.kv(.unanswered, step.end == nil))
        if !step.findings.isEmpty { a.append(Self.kv(.rules, step.findings.map(\.rawValue))) }
        if step.end == nil || outcome == "error" || outcome == "no-status" {
            s.status.code = .error
            a.append(Self.kv(.errorType, step.errorCode ?? (step.end == nil ? "unanswered" : outcome)))
            s.status.message = step.end == nil ? "no final response by the end of the session" : "\(outcome) \(step.errorCode ?? "")"
        }
        s.attributes = a
        if let ack = step.acknowledged {
            var e = Opentelemetry_Proto_Trace_V1_Span.Event()
            e.name = "acknowledged"
            e.timeUnixNano = UInt64(clamping: ack)
            s.events.append(e)
        }
        return s
    }

    func event(_ step: JourneyStep) -> Opentelemetry_Proto_Trace_V1_Span.Event {
        var e = Opentelemetry_Proto_Trace_V1_Span.Event()
        e.name = step.action
        e.timeUnixNano = UInt64(clamping: step.start)
        var a = [Self.kv(.direction, step.direction.rawValue), Self.kv(.records, step.records)]
        if let id = step.correlationId { a.append(Self.kv(.correlationId, id)) }
        if let d = step.detail { a.append(Self.kv(.detail, d)) }
        if !step.findings.isEmpty { a.append(Self.kv(.rules, step.findings.map(\.rawValue))) }
        e.attributes = a
        return e
    }
}
