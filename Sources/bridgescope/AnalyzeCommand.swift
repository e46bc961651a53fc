import ArgumentParser
import BridgeAnalysis
import BridgeArchive
import BridgeOTLP
import Foundation

/// `bridgescope analyze`: find why a session hung or failed; reports for people and CI.
struct AnalyzeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Analyze recorded sessions: pairing, latency, protocol and journey rules; text, JSON, HTML or JUnit reports.",
        discussion: """
        Inputs are session archives (.bsz, from `bridgescope record`), tap logs (.ndjson or \
        .jsonl, one record per line) or directories holding them; several inputs give one report per session plus an aggregate. Exit status: 0 \
        when no finding reaches --fail-on, 1 when one does, 2 on usage or I/O errors. \
        How to read a report: docs/ANALYZER.md; the JSON schema: docs/REPORT.md.

        Examples:
          bridgescope analyze captures/busy-storm.bsz
          bridgescope analyze sessions/ --jobs 2 --format html -o report.html
          bridgescope analyze session.bsz --format junit -o junit.xml --fail-on warning
          zstdcat session.bsz | bridgescope analyze -
          bridgescope analyze sessions/ --otlp http://127.0.0.1:4318   (also as traces: docs/OTLP.md)
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, html, junit
    }

    enum Colour: String, ExpressibleByArgument, CaseIterable {
        case auto, always, never
    }

    @Option(help: "Report format: text, json, html or junit.")
    var format: Format = .text

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the report to FILE instead of standard output.", valueName: "FILE"))
    var output: String?

    @Option(help: "Exit 1 when findings of this severity or worse exist: error, warning or never.")
    var failOn: String = "error"

    @Option(name: .customLong("timeout"), help: ArgumentHelp(
        "Web-side timeout for an action, ACTION=MS (repeatable; *=MS sets the default).", valueName: "ACTION=MS"))
    var timeouts: [String] = []

    @Option(help: "Sessions analysed in parallel (the default is the number of cores this process may use). With fewer sessions than jobs, each archive is also read on threads of its own (docs/ANALYZER.md).")
    var jobs: Int = usableCores()

    @Option(help: "Colour in text output: auto (on a terminal, unless NO_COLOR is set or TERM is dumb), always or never.")
    var color: Colour = .auto

    @Flag(help: "Judge a damaged or truncated input (say, the recorder was killed) on what could be read: pass or fail instead of incomplete (which exits 1).")
    var acceptIncomplete = false

    @Argument(help: "Session archives (.bsz), tap logs (.ndjson, .jsonl) or directories.")
    var inputs: [String]

    @Flag(help: "One fleet report over every session (latency merged, findings per rule with their sessions, outcomes, worst sessions, cuts by hostVersion, environment and source) instead of a report per session; memory is bounded by --jobs, not by the number of sessions (docs/FLEET.md). Formats text, json, html.")
    var fleet = false

    @Option(help: ArgumentHelp("With --fleet: only sessions that started at or after this time (2026-11-24, 2026-11-24T13:00:00Z, or ns since the epoch).", valueName: "TIME"))
    var since: String?

    @Option(help: ArgumentHelp("With --fleet: only sessions that started before this time.", valueName: "TIME"))
    var until: String?

    @OptionGroup var otlp: OTLPOptions

    func validate() throws {
        guard FailThreshold(rawValue: failOn) != nil else {
            throw ValidationError("--fail-on must be error, warning or never, not \"\(failOn)\"")
        }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        if !fleet, since != nil || until != nil { throw ValidationError("--since and --until select sessions of a --fleet report") }
        if fleet, format == .junit { throw ValidationError("--fleet writes text, json or html") }
        for (name, value) in [("--since", since), ("--until", until)] {
            if let value, FleetAnalyzer.time(value) == nil {
                throw ValidationError("\(name) \"\(value)\": give a date (2026-11-24), a date and time (2026-11-24T13:00:00Z) or nanoseconds since the epoch")
            }
        }
        var config = AnalyzerConfiguration()
        do throws(AnalysisError) {
            for t in timeouts { try config.timeouts.apply(t) }
        } catch {
            throw ValidationError(error.message)
        }
    }

    func run() async throws {
        let threshold = FailThreshold(rawValue: failOn)!
        var config = AnalyzerConfiguration()
        do throws(AnalysisError) {
            for t in timeouts { try config.timeouts.apply(t) }
        } catch {
            throw ValidationError(error.message)
        }
        let paths: [String]
        do throws(AnalysisError) {
            let found = try SessionInput.expand(inputs)
            paths = found.inputs
            let other = found.skipped.filter { $0.kind == .unknown }
            for s in found.skipped where s.kind != .unknown {
                printError("note: skipped \(s.path): it is \(s.kind); \(s.kind.advice(path: s.path))")
            }
            if !other.isEmpty {
                let names = other.prefix(3).map { ($0.path as NSString).lastPathComponent }.joined(separator: ", ")
                printError("note: skipped \(other.count) other file\(other.count == 1 ? "" : "s") that hold no session (\(names)\(other.count > 3 ? ", ..." : ""))")
            }
        } catch {
            printError("error: \(error.message)")
            throw Exit.usage
        }
        guard !paths.isEmpty else {
            printError("error: no session archives or tap logs found in \(inputs.joined(separator: ", ")) (files are judged by their content, not their names)")
            throw Exit.usage
        }
        // The output is opened (and checked against the inputs) before any work: a
        // report is never written over a session, and a bad path fails at once.
        let out: OutputFile
        do throws(ArchiveError) {
            out = try OutputFile(path: output ?? "-", inputs: paths)
        } catch {
            printError("error: \(error.description)")
            throw Exit.usage
        }
        // Progress on a terminal, as `record` shows it; nothing when standard error is piped.
        let started = ContinuousClock.now
        let total = paths.count
        let showProgress = total > 1 && isTerminal(2)
        if fleet { return try await runFleet(paths, config: config, threshold: threshold, out: out, showProgress: showProgress) }
        let headers = OTLPSessionExport.HeaderRecorder()
        let batch = await BatchAnalyzer(configuration: config, jobs: jobs, opener: headers.opener).run(paths) { done, failed in
            guard showProgress else { return }
            let elapsed = (ContinuousClock.now - started).components
            let seconds = Swift.max(0.001, Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
            var line = "analyzed \(done)/\(total) sessions, \(Int(Double(done) / seconds))/s"
            if failed > 0 { line += ", \(failed) unreadable" }
            printError("\r\u{1B}[K" + line, terminator: done == total ? "\n" : "")
        }
        // A text report on the terminal already says it; otherwise standard error must.
        if !(format == .text && (output ?? "-") == "-" && isTerminal(1)) {
            for f in batch.failures { printError("error: \(f.error.message)") }
        }
        let useColour = color == .always || (color == .auto && output == nil && colourWanted(1))
        let options = RenderOptions(threshold: threshold, color: useColour, acceptIncomplete: acceptIncomplete)
        do throws(ArchiveError) {
            switch format {
            case .text: try out.write(Array(TextReportRenderer(options: options).render(batch).utf8))
            // Streamed: the JSON report is never whole in memory.
            case .json: try JSONReportRenderer(options: options).write(batch) { (chunk: [UInt8]) throws(ArchiveError) in try out.write(chunk) }
            case .html: try out.write(Array(HTMLReportRenderer(options: options).render(batch).utf8))
            case .junit: try out.write(Array(JUnitReportRenderer(options: options).render(batch).utf8))
            }
            try out.commit()
        } catch {
            printError("error: \(error.description)")
            throw Exit.usage
        }
        if let output, output != "-" { printError("wrote \(output)") }
        if otlp.url != nil {
            let configuration = try otlp.configuration()
            let outcome = await OTLPSessionExport(configuration: configuration, analysis: config).run(batch.reports, headers: headers)
            OTLPOptions.printSummary(outcome, to: configuration.endpoint)
            if outcome.error != nil { throw Exit.usage }
        }
        let status = FailPolicy.exitStatus(batch, threshold: threshold, acceptIncomplete: acceptIncomplete)
        if status != 0 { throw ExitCode(status) }
    }

    /// `--fleet`: one aggregate report, each session dropped once folded in.
    func runFleet(_ paths: [String], config: AnalyzerConfiguration, threshold: FailThreshold, out: OutputFile, showProgress: Bool) async throws {
        let started = ContinuousClock.now
        let analyzer = FleetAnalyzer(configuration: config, jobs: jobs, since: since.flatMap(FleetAnalyzer.time),
                                     until: until.flatMap(FleetAnalyzer.time))
        let exporter = try otlp.url.map { _ in OTLPExporter(configuration: try otlp.configuration()) }
        var exportError: OTLPError?
        let report = await analyzer.run(paths, progress: { done, failed, findings in
            guard showProgress else { return }
            let elapsed = (ContinuousClock.now - started).components
            let seconds = Swift.max(0.001, Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
            var line = "analyzed \(done)/\(paths.count) sessions, \(Int(Double(done) / seconds))/s, \(findings) findings"
            if failed > 0 { line += ", \(failed) unreadable" }
            printError("\r\u{1B}[K" + line, terminator: done == paths.count ? "\n" : "")
        }, each: { report, header in
            guard let exporter, exportError == nil else { return }
            do throws(OTLPError) { try await exporter.add(SessionTrace(report: report, header: header)) } catch { exportError = error }
        })
        let text: String
        switch format {
        case .json: text = FleetJSONRenderer().render(report)
        case .html: text = FleetHTMLRenderer().render(report)
        default: text = FleetTextRenderer().render(report)
        }
        do throws(ArchiveError) {
            try out.write(Array(text.utf8))
            try out.commit()
        } catch {
            printError("error: \(error.description)")
            throw Exit.usage
        }
        if let output, output != "-" { printError("wrote \(output)") }
        if let exporter {
            if exportError == nil {
                do throws(OTLPError) { _ = try await exporter.finish() } catch { exportError = error }
            }
            OTLPOptions.printSummary(OTLPSessionExport.Outcome(summary: exporter.summary, failures: [], damaged: [], error: exportError),
                                     to: exporter.configuration.endpoint)
            if exportError != nil { throw Exit.usage }
        }
        let status = report.exitStatus(threshold: threshold)
        if status != 0 { throw ExitCode(status) }
    }
}
