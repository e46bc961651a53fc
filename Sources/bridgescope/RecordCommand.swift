import ArgumentParser
import BridgeArchive
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `bridgescope record`: capture bridge traffic into a session archive.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record bridge messages into a session archive (*.bsz).",
        discussion: """
        Give exactly one source. Available now:

          --tap FILE  an in-app tap log, one JSON object per line:
                      {"t": <epoch ms|ns>, "dir": "w2h"|"h2w", "conn"?: "<id>",
                       "msg": <envelope>}  (or "text": "<raw string>" for "msg").
                      '-' (or /dev/stdin) reads standard input as it is written.
                      A bad line becomes an error event with its line number;
                      the import goes on.
                      Spec: docs/FORMAT.md.

        The archive is readable while it is written: it is flushed every 64 KiB or \
        250 ms, so a recorder killed with SIGKILL loses at most the last 250 ms. \
        Ctrl-C (SIGINT) or SIGTERM stops the recording and finishes the archive \
        cleanly; a second Ctrl-C ends it at once. Progress is shown on standard \
        error when it is a terminal.

        Exit status: 0 recorded cleanly; 1 recorded, but some input lines could not \
        be (error events in the archive); 2 usage or I/O error.
        """
    )

    @Option(name: .shortAndLong, help: ArgumentHelp("Archive to write (created or replaced).", valueName: "out.bsz"))
    var output: String

    // MARK: sources (exactly one)

    @Option(help: ArgumentHelp("Import an in-app tap log ('-' for standard input).", valueName: "log.ndjson"))
    var tap: String?

    // Capture sources from BridgeCapture plug in here, each as its own option group:
    // live libpcap (--interface, --port, --filter, --duration, --count), offline files
    // (--read capture.pcap|pcapng) and the recording proxy (--proxy, --upstream). Each
    // builds a `RecordingSource` and goes through the same `ArchiveRecorder.record` call.

    // MARK: archive settings

    @Option(help: "zstd compression level, 1 (fastest, the default) to 19.")
    var level: Int32 = 1

    @Flag(help: "Do not show progress, even on a terminal.")
    var quiet = false

    func validate() throws {
        let sources = [tap].compactMap { $0 }
        guard sources.count == 1 else {
            throw ValidationError(sources.isEmpty ? "give a source: --tap FILE" : "give only one source")
        }
        guard (1...19).contains(level) else { throw ValidationError("--level must be between 1 and 19") }
    }

    func run() throws {
        StopSignal.install()
        var source: TapSource
        do {
            source = try TapSource(path: tap!)
        } catch {
            printError("error: \(error)")
            throw Exit.usage
        }
        let showProgress = !quiet && isTerminal(2)
        let control = RecordingControl(
            shouldStop: { StopSignal.requested },
            progress: showProgress ? { p in printProgress(p.line) } : nil
        )
        let trailer: ArchiveTrailer
        do {
            trailer = try ArchiveRecorder.record(&source, to: output, toolVersion: ToolVersion.current,
                                                 options: ArchiveWriterOptions(compressionLevel: level), control: control)
        } catch {
            if showProgress { printError("") }
            printError("error: \(error)")
            throw Exit.usage
        }
        if showProgress {
            printError("")
            printError("\(output): \(trailer.records) messages, \(trailer.bytes) bytes, \(trailer.events) events")
        }
        if trailer.errors > 0 {
            printError("warning: \(trailer.errors) input line(s) could not be recorded; see the error events (bridgescope cat --format pretty \(output))")
            throw Exit.findings
        }
    }
}

/// Overwrites the progress line on the terminal.
private func printProgress(_ line: String) {
    var stderr = StandardError()
    print("\r\u{1B}[K" + line, terminator: "", to: &stderr)
}

/// SIGINT/SIGTERM ask the recording to stop; a second signal ends the process at once.
enum StopSignal {
    private static let flag = Atomic<Bool>(false)

    /// Whether a stop was requested.
    static var requested: Bool { flag.load(ordering: .relaxed) }

    /// Installs the handlers.
    static func install() {
        _ = flag.load(ordering: .relaxed) // initialize the global before any handler can run
        for sig in [SIGINT, SIGTERM] {
            signal(sig) { s in
                StopSignal.flag.store(true, ordering: .relaxed)
                signal(s, SIG_DFL)
            }
        }
    }
}
