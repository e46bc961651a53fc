import ArgumentParser
import BridgeArchive
import BridgeCapture
import BridgeOTLP
import BridgePcap
import BridgeProxy

/// `bridgescope export`: write a session archive in other formats.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a session archive (*.bsz) as pcapng, HAR or JSON Lines, or sessions as OpenTelemetry traces.",
        discussion: """
        Give one or more outputs ('-' writes to standard output); the archive is read once.

          --pcapng OUT  synthesized Ethernet/IPv4/TCP packets: a TCP and HTTP upgrade
                        handshake per connection, then one uncompressed WebSocket
                        frame per message. Wireshark and tshark decode the same
                        messages: tshark -r OUT -Y websocket -T fields
                        -e websocket.payload.text
          --har OUT     HAR 1.2 as Chrome DevTools writes WebSocket traffic (one entry
                        per connection, messages in _webSocketMessages): import it
                        in DevTools' Network panel.
          --jsonl OUT   one line per message in the tap log format
                        {"t":<ns>,"dir":..,"conn":..,"msg":..}, which
                        `bridgescope record --tap` reads back.
          --otlp URL    every session given (archives or tap logs) as
                        OpenTelemetry traces over OTLP/HTTP with protobuf: a
                        trace per journey, a span per request at its recorded
                        times, events and findings as span events; ids derived
                        from the archive, so a second export does not
                        duplicate. Mapping and collector setup: docs/OTLP.md.

        Specs: docs/FORMAT.md §11. Events other than connection open/close are not
        exported (they have no place in these formats).

        Exit status: 0 exported; 1 exported, but the archive is damaged (what was
        readable was exported), or the collector rejected spans; 2 usage or I/O
        error, or the collector stayed unreachable for --otlp-timeout.

        Examples:
          bridgescope export session.bsz --pcapng session.pcapng   (open in Wireshark)
          bridgescope export session.bsz --har session.har --jsonl session.ndjson
          bridgescope export sessions/*.bsz --otlp http://127.0.0.1:4318
        """
    )

    @Argument(help: ArgumentHelp("The archive (several with --otlp).", valueName: "FILE.bsz"))
    var files: [String]

    @Option(help: ArgumentHelp("Write a pcapng capture.", valueName: "out.pcapng"))
    var pcapng: String?

    @Option(help: ArgumentHelp("Write a HAR file.", valueName: "out.har"))
    var har: String?

    @Option(help: ArgumentHelp("Write JSON Lines (tap log format).", valueName: "out.jsonl"))
    var jsonl: String?

    @OptionGroup var otlp: OTLPOptions

    func validate() throws {
        let outputs = [pcapng, har, jsonl].compactMap { $0 }
        guard !files.isEmpty else { throw ValidationError("give the archive to export") }
        if otlp.url != nil {
            guard outputs.isEmpty else { throw ValidationError("--otlp goes alone: export to files in another run") }
            return
        }
        guard files.count == 1 else { throw ValidationError("give one archive (several only with --otlp)") }
        guard !outputs.isEmpty else { throw ValidationError("give an output: --pcapng OUT, --har OUT, --jsonl OUT or --otlp URL") }
        guard outputs.filter({ $0 == "-" }).count <= 1 else { throw ValidationError("only one output can be standard output ('-')") }
        guard Set(outputs).count == outputs.count else { throw ValidationError("give each output its own file") }
    }

    func run() async throws {
        if otlp.url != nil { return try await runOTLP() }
        let file = files[0]
        var targets: [ArchiveExport.Target] = []
        if let pcapng { targets.append(.init(path: pcapng, exporter: PcapngExporter())) }
        if let har { targets.append(.init(path: har, exporter: HARExporter(toolVersion: ToolVersion.current))) }
        if let jsonl { targets.append(.init(path: jsonl, exporter: TapLogExporter())) }
        let findings: [ArchiveFinding]
        do {
            // With a second core to use, reading runs on threads of its own.
            findings = try ArchiveExport.run(archive: file, to: targets, readAhead: usableCores() > 1)
        } catch {
            printError("error: \(error)")
            throw Exit.usage
        }
        for f in findings { printError("warning: \(file): \(f)") }
        if !findings.isEmpty { throw Exit.findings }
    }

    /// `--otlp`: analyse each session and send it as traces.
    func runOTLP() async throws {
        let configuration = try otlp.configuration()
        let outcome = await OTLPSessionExport(configuration: configuration).run(files)
        for f in outcome.failures { printError("error: \(f.error.message)") }
        for d in outcome.damaged { printError("warning: \(d): damaged; what was readable was exported") }
        OTLPOptions.printSummary(outcome, to: configuration.endpoint)
        if outcome.error != nil || !outcome.failures.isEmpty { throw Exit.usage }
        if outcome.summary.rejected > 0 || !outcome.damaged.isEmpty { throw Exit.findings }
    }
}
