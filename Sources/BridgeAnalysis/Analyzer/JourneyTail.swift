/// What a connection leaves at the end of a streaming analysis (``JourneySink``).
package struct JourneyTail: Sendable {
    /// Whether its steps went through ``JourneySink/step(_:connection:slot:findings:)``.
    package var streamed: Bool
    /// A streamed connection's: the stored findings that go on no request (the journey's
    /// root), in report order. A kept connection's: all its stored findings, in report
    /// order (the report's connection holds its steps).
    package var findings: [ReportFinding]
}
