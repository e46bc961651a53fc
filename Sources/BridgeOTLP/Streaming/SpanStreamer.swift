import BridgeAnalysis
import BridgeArchive

/// The second pass of a streamed export (``OTLPStreamProducer``): the sink that maps
/// each settled step to its span as the analysis hands it over and writes it into the
/// batch (``OTLPStreamOutput``). Per journey it holds a ``JourneySpans`` (ids, at most
/// ``OTLPExporter/Configuration/maxEventsPerSpan`` root events waiting for their span);
/// what a span says of the whole journey comes from the first pass (``JourneyPlan``).
/// A two-sided recording's `@web` journey, kept whole by the analysis, is mapped at the
/// end as by ``OTLPExporter/add(_:)``. Used by the producer thread only.
final class SpanStreamer: JourneySink, @unchecked Sendable {
    let plan: JourneyPlan
    /// The session as the resource and ids see it: the first pass's report, the header.
    let session: SessionTrace
    let output: OTLPStreamOutput
    let mapper = TraceMapper()
    /// The session's identity (``TraceIdentity``).
    let identity: String
    /// The key of the session's first journey in the batch (``OTLPSpanBatch``).
    let firstKey: Int
    private var journeys: [JourneySpans?]

    init(plan: JourneyPlan, header: ArchiveHeader?, output: OTLPStreamOutput) {
        self.plan = plan
        self.session = SessionTrace(report: plan.report, header: header)
        self.output = output
        self.identity = session.identity
        self.firstKey = output.journeyKeys(plan.report.connections.count)
        self.journeys = Array(repeating: nil, count: plan.report.connections.count)
    }

    func step(_ step: JourneyStep, connection: String, slot: Int, findings: [ReportFinding]) {
        guard slot < journeys.count else { return }
        write(slot) { j, out in j.stream(step, findings: findings, into: &out) }
    }

    func finish(_ report: AnalysisReport, journeys ends: [JourneyTail]) {
        for (slot, end) in ends.enumerated() where slot < journeys.count {
            if end.streamed {
                for f in end.findings {
                    write(slot) { j, out in j.streamRootFinding(f, into: &out) }
                }
                write(slot) { j, out in j.streamEnd(into: &out) }
            } else {
                // Kept whole: mapped from the journey as the whole-session export does.
                journeys[slot] = mapper.journey(report.connections[slot], session: session, findings: end.findings,
                                                maxEvents: output.configuration.maxEventsPerSpan)
                var more = true
                while more, !output.stopped { write(slot) { j, out in more = j.next(into: &out); return more } }
            }
            journeys[slot] = nil
        }
    }

    /// Lets `body` write a span (or not) of journey `slot`, made on first use.
    private func write(_ slot: Int, _ body: (inout JourneySpans, inout ProtobufWriter) -> Bool) {
        if journeys[slot] == nil {
            journeys[slot] = JourneySpans(streaming: plan.report.connections[slot], identity: identity,
                                          rootEventCount: plan.rootEvents[slot], maxEvents: output.configuration.maxEventsPerSpan)
        }
        output.write(key: firstKey + slot, resource: { mapper.resource(session, connection: plan.report.connections[slot]) }) { out in
            body(&journeys[slot]!, &out)
        }
    }
}
