import BridgeAnalysis

/// The first pass of a streamed export (``OTLPStreamProducer``): what a journey's spans
/// say of the whole journey and is known only at its end, gathered by analysing the
/// session once without mapping anything. The root span's counts, outcome and end, the
/// resource's `service.version` and `deployment.environment.name` (the latest
/// capability.query answer), and the number of root events, which every
/// `journey.events` span carries (`bridgescope.journey.event_spans`). Memory: a count
/// per connection and the report without steps.
struct JourneyPlan: Sendable {
    /// The first pass's report, every connection's steps left out.
    var report: AnalysisReport
    /// Root events per connection (events, capture events and root findings), for
    /// streamed connections.
    var rootEvents: [Int]

    /// The sink of the first pass: counts each streamed connection's events.
    final class Counter: JourneySink, @unchecked Sendable {
        private var events: [Int] = []
        private(set) var plan: JourneyPlan?

        func step(_ step: JourneyStep, connection: String, slot: Int, findings: [ReportFinding]) {
            guard step.kind != .request else { return }
            if events.count <= slot { events += repeatElement(0, count: slot + 1 - events.count) }
            events[slot] += 1
        }

        func finish(_ report: AnalysisReport, journeys: [JourneyTail]) {
            var stripped = report
            for i in stripped.connections.indices { stripped.connections[i].steps = [] }
            let roots = journeys.indices.map { i in (i < events.count ? events[i] : 0) + journeys[i].findings.count }
            plan = JourneyPlan(report: stripped, rootEvents: roots)
        }
    }
}
