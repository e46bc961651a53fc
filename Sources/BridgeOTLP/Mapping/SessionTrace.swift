import BridgeAnalysis
import BridgeArchive

/// One analysed session on its way to a tracing backend: the analyzer's report and
/// what the input said about the recording (the archive header; nil for a tap log).
public struct SessionTrace: Sendable {
    /// The analysis (journeys, requests, events, findings).
    public var report: AnalysisReport
    /// The archive header, when the session is an archive.
    public var header: ArchiveHeader?

    /// Creates a session trace.
    public init(report: AnalysisReport, header: ArchiveHeader?) {
        self.report = report
        self.header = header
    }

    /// What identifies the session for ``TraceIdentity``: the archive's header fields
    /// (`startTime`, `source`, `host`: the same for every copy of the file, different
    /// for every recording), or for a tap log its file name and first capture time.
    var identity: String {
        if let h = header {
            return "archive|\(h.startTime)|\(h.source)|\(h.host ?? "")"
        }
        let name = report.source.split(separator: "/").last.map(String.init) ?? report.source
        return "tap|\(name)|\(report.connections.first?.firstTime ?? 0)"
    }
}
