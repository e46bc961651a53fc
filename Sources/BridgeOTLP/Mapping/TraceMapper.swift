import BridgeAnalysis
import Foundation

/// Turns one analysed session into OTLP traces (docs/OTLP.md, "Mapping"): per
/// connection (journey) one `ResourceSpans` with one trace, a root span `journey` from
/// the connection's first to its last record, and a child span per request from its
/// send to its final response (to the session's end when unanswered); events and
/// capture events are span events of the root at their recorded times, findings are
/// span events of the request they name, else of the root. Every time is the recorded
/// capture time (ns since the epoch), never the export time. Pure: no I/O.
///
/// The spans themselves come one at a time from ``JourneySpans``; this type gives what
/// is per session (findings by journey) and per journey (the resource, the scope).
struct TraceMapper {
    /// The version written as the scope's and the SDK's version.
    static let toolVersion = "0.1.0"
    /// `service.name` of every resource.
    static let serviceName = "gbgbridge-journey"
    /// Events per span, the root's included, unless configured otherwise
    /// (``OTLPExporter/Configuration/maxEventsPerSpan``).
    static let defaultMaxEventsPerSpan = 1000

    /// The encoded `InstrumentationScope`: name `bridgescope`, version the tool's.
    static let scope: [UInt8] = {
        var w = ProtobufWriter()
        w.stringField(1, "bridgescope")
        w.stringField(2, toolVersion)
        return w.bytes
    }()

    /// The session's stored findings by connection id: a finding without a connection,
    /// or naming one the report does not list, goes to the session's first journey.
    func findingsByConnection(_ report: AnalysisReport) -> [String: [ReportFinding]] {
        var byConnection: [String: [ReportFinding]] = [:]
        let ids = Set(report.connections.map(\.id))
        let first = report.connections.first?.id
        for f in report.findings {
            let conn = f.connection.flatMap { ids.contains($0) ? $0 : nil } ?? first
            if let conn { byConnection[conn, default: []].append(f) }
        }
        return byConnection
    }

    /// The encoded `Resource` of one journey.
    func resource(_ session: SessionTrace, connection c: ConnectionReport) -> [UInt8] {
        var w = ProtobufWriter()
        w.attribute(1, .serviceName, Self.serviceName)
        w.attribute(1, .sdkName, "bridgescope")
        w.attribute(1, .sdkLanguage, "swift")
        w.attribute(1, .sdkVersion, Self.toolVersion)
        w.attribute(1, .sessionFile, session.report.source)
        if let v = c.hostVersion { w.attribute(1, .serviceVersion, v) }
        if let e = c.environment { w.attribute(1, .deploymentEnvironment, e) }
        if let h = session.header {
            w.attribute(1, .sessionSource, h.source)
            if let host = h.host { w.attribute(1, .recorderHost, host) }
            w.attribute(1, .recorderVersion, h.toolVersion)
            w.attribute(1, .sessionStart, Int(h.startTime))
        }
        return w.bytes
    }

    /// The spans of one journey, to be drawn one at a time.
    func journey(_ c: ConnectionReport, session: SessionTrace, findings: [ReportFinding],
                 maxEvents: Int = TraceMapper.defaultMaxEventsPerSpan) -> JourneySpans {
        JourneySpans(connection: c, identity: session.identity, findings: findings, maxEvents: maxEvents)
    }
}
