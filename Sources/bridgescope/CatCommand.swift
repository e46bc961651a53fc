import ArgumentParser
import BridgeArchive

/// `bridgescope cat`: print a session archive.
struct CatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cat",
        abstract: "Print the records of a session archive (*.bsz).",
        discussion: """
        --format jsonl (the default) prints the archive's own lines byte for byte: \
        header, records, events, trailer (what `zstdcat FILE` prints, minus damaged \
        lines). --format pretty prints one readable line per item. Filters select \
        records; events are shown only without --dir, --type and --action (and only \
        those of the --conn connection when it is given).

        Damage (a truncated or corrupt archive, a missing trailer, bad lines) is \
        reported on standard error, after everything readable was printed.

        Exit status: 0 clean; 1 the archive has findings; 2 usage or I/O error.

        Examples:
          bridgescope cat captures/happy-passport.bsz --format pretty
          bridgescope cat session.bsz --dir h2w --action camera.document.capture
          bridgescope cat damaged.bsz --salvage > lines.jsonl
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case jsonl, pretty
    }

    @Argument(help: ArgumentHelp("The archive.", valueName: "FILE.bsz"))
    var file: String

    @Option(help: "Output format: jsonl or pretty.")
    var format: Format = .jsonl

    @Option(help: ArgumentHelp("Only records in this direction: w2h or h2w.", valueName: "dir"))
    var dir: String?

    @Option(help: ArgumentHelp("Only envelopes with this payload.action.", valueName: "action"))
    var action: String?

    @Option(help: ArgumentHelp("Only envelopes of this type: request, response or event.", valueName: "type"))
    var type: String?

    @Option(help: ArgumentHelp("Only this connection id.", valueName: "id"))
    var conn: String?

    @Flag(help: "Print the lines of damaged frames too (they are left out by default, as they may not be what was recorded), marked {\"unverified\":true,...}.")
    var salvage = false

    func validate() throws {
        if let dir, dir != "w2h" && dir != "h2w" { throw ValidationError("--dir must be w2h or h2w, not \"\(dir)\"") }
        if let type, !["request", "response", "event"].contains(type) {
            throw ValidationError("--type must be request, response or event, not \"\(type)\"")
        }
    }

    func run() throws {
        let filter = ArchiveRecordFilter(direction: dir.map(ArchiveDirection.init(rawValue:)), connection: conn,
                                         type: type, action: action)
        // With a second core to use, decompression runs on a thread of its own.
        let cat = ArchiveCat(format: format == .pretty ? .pretty : .jsonl, filter: filter, salvage: salvage,
                             readAhead: usableCores() > 1)
        let findings: [ArchiveFinding]
        do {
            findings = try cat.run(path: file, to: 1) { printError("warning: \(file): \($0)") }
        } catch {
            printError("error: \(error)")
            throw Exit.usage
        }
        if !findings.isEmpty { throw Exit.findings }
    }
}
