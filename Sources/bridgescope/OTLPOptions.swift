import ArgumentParser
import BridgeOTLP

/// The `--otlp` options `export` and `analyze` share (docs/OTLP.md).
struct OTLPOptions: ParsableArguments {
    @Option(name: .customLong("otlp"), help: ArgumentHelp(
        "Send every session as OpenTelemetry traces to this OTLP/HTTP collector (http://HOST:4318; a URL without a path gets /v1/traces).",
        valueName: "URL"))
    var url: String?

    @Option(name: .customLong("otlp-header"), help: ArgumentHelp(
        "An extra request header for the collector, KEY=VALUE (repeatable), e.g. Authorization=Bearer TOKEN.", valueName: "K=V"))
    var headers: [String] = []

    @Option(name: .customLong("otlp-timeout"), help: ArgumentHelp(
        "Seconds one batch may take, retries included, before the export fails (default 30).", valueName: "S"))
    var timeout: Double = 30

    @Option(name: .customLong("otlp-batch"), help: ArgumentHelp("Spans per request (default 2048).", valueName: "N"))
    var batch: Int = 2048

    func validate() throws {
        if url == nil, !headers.isEmpty { throw ValidationError("--otlp-header needs --otlp URL") }
        guard timeout > 0 else { throw ValidationError("--otlp-timeout must be more than 0 seconds") }
        guard batch >= 1 else { throw ValidationError("--otlp-batch must be at least 1") }
        if url != nil { _ = try configuration() }
    }

    /// The exporter's configuration; a bad URL or header is a usage error.
    func configuration() throws -> OTLPExporter.Configuration {
        do throws(OTLPError) {
            let endpoint = try OTLPEndpoint(url ?? "")
            let parsed = try headers.map { h throws(OTLPError) in try OTLPExporter.Configuration.header(h) }
            return OTLPExporter.Configuration(endpoint: endpoint, headers: parsed,
                                              retry: OTLPRetryPolicy(timeout: timeout), maxBatchSpans: batch)
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// Prints why the export stopped, the counts and the collector's messages about
    /// rejected spans.
    static func printSummary(_ outcome: OTLPSessionExport.Outcome, to endpoint: OTLPEndpoint) {
        if let e = outcome.error { printError("error: cannot export to \(e.message)") }
        let s = outcome.summary
        printError("otlp: \(s.line) to \(endpoint)")
        for m in s.rejectionMessages { printError("otlp: the collector said: \(m)") }
    }
}
