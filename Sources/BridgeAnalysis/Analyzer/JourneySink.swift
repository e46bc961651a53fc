/// Where a streaming analysis hands its journeys as it goes (`export --otlp`,
/// docs/OTLP.md, "Memory"): a step is handed over once nothing the analysis may still
/// do can change it or the findings it carries, so the analyzer keeps only what is open
/// (open requests, and the connection's first and latest request, which end-of-session
/// findings may still name), not the session's steps.
///
/// Set ``SessionAnalyzer/sink`` before the first record. Each connection is then either
/// *streamed* (its steps come one by one through ``step(_:connection:slot:findings:)``,
/// and its report has no steps) or, for a two-sided recording's `@web` side, whose
/// crossing findings may mark any earlier step, *kept* whole as without a sink (capped
/// by ``AnalyzerConfiguration/Limits/maxStepsPerConnection``) and handed over at the end.
///
/// Called on the thread that feeds the analyzer, one call at a time.
package protocol JourneySink: AnyObject, Sendable {
    /// A step of a streamed connection that will not change any more, with the stored
    /// findings that go on it (a request's: those whose first record that belongs to a
    /// request of the journey is one of its records), in report order. Events and
    /// capture events come in capture order; requests when they are settled.
    func step(_ step: JourneyStep, connection: String, slot: Int, findings: [ReportFinding])

    /// The end of the session: the report (a streamed connection's with no steps) and,
    /// for each of its connections in order, what is left.
    func finish(_ report: AnalysisReport, journeys: [JourneyTail])
}
