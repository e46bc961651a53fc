import ArgumentParser
import BridgeArchive
import BridgeCapture
import BridgePcap
import BridgeProxy

/// `bridgescope export`: write a session archive in other formats.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a session archive (*.bsz) as pcapng, HAR or JSON Lines.",
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

        Specs: docs/FORMAT.md §11. Events other than connection open/close are not
        exported (they have no place in these formats).

        Exit status: 0 exported; 1 exported, but the archive is damaged (what was
        readable was exported); 2 usage or I/O error.

        Examples:
          bridgescope export session.bsz --pcapng session.pcapng   (open in Wireshark)
          bridgescope export session.bsz --har session.har --jsonl session.ndjson
        """
    )

    @Argument(help: ArgumentHelp("The archive.", valueName: "FILE.bsz"))
    var file: String

    @Option(help: ArgumentHelp("Write a pcapng capture.", valueName: "out.pcapng"))
    var pcapng: String?

    @Option(help: ArgumentHelp("Write a HAR file.", valueName: "out.har"))
    var har: String?

    @Option(help: ArgumentHelp("Write JSON Lines (tap log format).", valueName: "out.jsonl"))
    var jsonl: String?

    func validate() throws {
        let outputs = [pcapng, har, jsonl].compactMap { $0 }
        guard !outputs.isEmpty else { throw ValidationError("give an output: --pcapng OUT, --har OUT or --jsonl OUT") }
        guard outputs.filter({ $0 == "-" }).count <= 1 else { throw ValidationError("only one output can be standard output ('-')") }
        guard Set(outputs).count == outputs.count else { throw ValidationError("give each output its own file") }
    }

    func run() throws {
        var targets: [ArchiveExport.Target] = []
        if let pcapng { targets.append(.init(path: pcapng, exporter: PcapngExporter())) }
        if let har { targets.append(.init(path: har, exporter: HARExporter(toolVersion: ToolVersion.current))) }
        if let jsonl { targets.append(.init(path: jsonl, exporter: TapLogExporter())) }
        let findings: [ArchiveFinding]
        do {
            findings = try ArchiveExport.run(archive: file, to: targets)
        } catch {
            printError("error: \(error)")
            throw Exit.usage
        }
        for f in findings { printError("warning: \(file): \(f)") }
        if !findings.isEmpty { throw Exit.findings }
    }
}
