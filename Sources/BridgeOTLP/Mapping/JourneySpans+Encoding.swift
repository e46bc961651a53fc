import BridgeAnalysis
import BridgeProtocol

/// How each span and event of a journey is written (docs/OTLP.md, "Spans", "Span events").
extension JourneySpans {
    typealias F = ProtobufWriter.SpanField

    /// The root span `journey`, with the events gathered so far.
    func writeRootSpan(into out: inout ProtobufWriter) {
        let c = connection
        let span = out.begin(2)
        out.spanHead(trace: trace, span: rootID, parent: [], name: "journey", kind: ProtobufWriter.SpanKind.internal,
                     start: c.firstTime, end: Swift.max(c.firstTime, c.lastTime))
        out.attribute(F.attributes, .connection, c.id)
        out.attribute(F.attributes, .journeyOutcome, c.outcome.state)
        out.attribute(F.attributes, .journeyRequests, c.requests)
        out.attribute(F.attributes, .journeyUnanswered, c.unanswered)
        out.attribute(F.attributes, .journeyWebMessages, c.webMessages)
        out.attribute(F.attributes, .journeyHostMessages, c.hostMessages)
        if let d = c.outcome.detail { out.attribute(F.attributes, .journeyDetail, d) }
        if c.stepsOmitted > 0 { out.attribute(F.attributes, .journeyStepsOmitted, c.stepsOmitted) }
        if eventSpans > 1 {
            out.attribute(F.attributes, .journeyEvents, rootEventCount)
            out.attribute(F.attributes, .journeyEventSpans, eventSpans)
        }
        out.bytes.append(contentsOf: pending.bytes)
        if c.outcome.state == "error" || c.outcome.state == "incomplete" {
            out.errorStatus(message: "journey \(c.outcome.state)\(c.outcome.detail.map { ": \($0)" } ?? "")")
        }
        out.end(span)
    }

    /// A `journey.events` span: the root's events past the first ``maxEvents``, from
    /// its first to its last event's time.
    func writeContinuation(into out: inout ProtobufWriter) {
        let span = out.begin(2)
        out.spanHead(trace: trace, span: TraceIdentity.eventsSpanID(traceHex: traceHex, part: part), parent: rootID,
                     name: "journey.events", kind: ProtobufWriter.SpanKind.internal,
                     start: pendingTimes.first, end: Swift.max(pendingTimes.first, pendingTimes.last))
        out.attribute(F.attributes, .connection, connection.id)
        out.attribute(F.attributes, .journeyEventPart, part)
        out.attribute(F.attributes, .journeyEventSpans, eventSpans)
        out.bytes.append(contentsOf: pending.bytes)
        out.end(span)
    }

    /// A request span, child of the root, with its `acknowledged` event and its findings.
    func writeRequest(_ step: JourneyStep, findings: [ReportFinding], into out: inout ProtobufWriter) {
        let c = connection
        let span = out.begin(2)
        out.spanHead(trace: trace, span: TraceIdentity.requestSpanID(traceHex: traceHex, record: step.records.first ?? 0),
                     parent: rootID, name: step.action, kind: ProtobufWriter.SpanKind.client,
                     start: step.start, end: Swift.max(step.start, step.end ?? c.lastTime))
        let outcome = step.outcome ?? "unanswered"
        out.attribute(F.attributes, .rpcSystem, "gbgbridge")
        out.attribute(F.attributes, .rpcMethod, step.action)
        out.attribute(F.attributes, .action, step.action)
        out.attribute(F.attributes, .connection, c.id)
        out.attribute(F.attributes, .status, outcome)
        out.attribute(F.attributes, .records, step.records)
        if let id = step.correlationId { out.attribute(F.attributes, .correlationId, id) }
        if let code = step.errorCode { out.attribute(F.attributes, .errorCode, code) }
        if let r = step.recoverable { out.attribute(F.attributes, .recoverable, r) }
        if let d = step.detail { out.attribute(F.attributes, .detail, d) }
        out.attribute(F.attributes, .busy, step.errorCode == ErrorCode.busy.rawValue)
        out.attribute(F.attributes, .late, step.findings.contains(.lateResponse))
        out.attribute(F.attributes, .unanswered, step.end == nil)
        if !step.findings.isEmpty { out.attribute(F.attributes, .rules, step.findings.map(\.rawValue)) }
        if let t = step.truncated { out.attribute(F.attributes, .truncated, t) }
        let failed = step.end == nil || outcome == "error" || outcome == "no-status" || step.truncated != nil
        if failed {
            out.attribute(F.attributes, .errorType, step.errorCode ?? (step.end == nil ? "unanswered" : outcome))
        }
        if let ack = step.acknowledged {
            let e = out.beginEvent(name: "acknowledged", time: ack)
            out.end(e)
        }
        for f in findings { Self.writeFinding(f, time: f.time ?? c.lastTime, into: &out) }
        if failed {
            out.errorStatus(message: step.truncated != nil ? Self.truncatedMessage
                : step.end == nil ? "no final response by the end of the session" : "\(outcome) \(step.errorCode ?? "")")
        }
        out.end(span)
    }

    /// The status message of a request span cut short (``JourneyStep/truncated``).
    static let truncatedMessage = "truncated: sent while the open-request limit was reached on its connection; not paired with its responses"

    /// An event or capture event of the journey, as an event of the root.
    static func writeEvent(_ step: JourneyStep, into out: inout ProtobufWriter) {
        let e = out.beginEvent(name: step.action, time: step.start)
        out.attribute(3, .direction, step.direction.rawValue)
        out.attribute(3, .records, step.records)
        if let id = step.correlationId { out.attribute(3, .correlationId, id) }
        if let d = step.detail { out.attribute(3, .detail, d) }
        if !step.findings.isEmpty { out.attribute(3, .rules, step.findings.map(\.rawValue)) }
        out.end(e)
    }

    /// A stored finding, as an event `finding`.
    static func writeFinding(_ f: ReportFinding, time: Int64, into out: inout ProtobufWriter) {
        let e = out.beginEvent(name: "finding", time: time)
        out.attribute(3, .findingRule, f.rule.rawValue)
        out.attribute(3, .findingSlug, f.slug)
        out.attribute(3, .findingSeverity, f.severity.rawValue)
        out.attribute(3, .findingMessage, f.message)
        if !f.records.isEmpty { out.attribute(3, .records, f.records) }
        if let id = f.correlationId { out.attribute(3, .correlationId, id) }
        out.end(e)
    }
}
