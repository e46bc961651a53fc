import ArgumentParser
import BridgeArchive
import BridgeCapture
import BridgeDevTools
import BridgePcap
import BridgeProxy
import Logging
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
        Give exactly one source:

          --read FILE       a pcap or pcapng file (any link type libpcap gives for
                            Ethernet, Linux cooked, loopback or raw IP).
          --interface IF    live capture with libpcap (root or CAP_NET_RAW and
                            CAP_NET_ADMIN); narrow it with --port N or --filter BPF.
                            Packets the kernel dropped are recorded as drop events.
          --proxy HOST:PORT --upstream ws://HOST:PORT/bridge
                            a recording WebSocket proxy, no privileges needed: point
                            the page at ws://HOST:PORT/bridge (journeys served by the
                            proxy do so by themselves; pages from the real host take
                            ?ws=ws://HOST:PORT/bridge).
          --tap FILE|DIR    an in-app tap log, one JSON object per line:
                            {"t": <epoch ms|ns>, "dir": "w2h"|"h2w", "conn"?: "<id>",
                             "msg": <envelope>}  (or "text"/"b64" for "msg").
                            '-' (or /dev/stdin) reads standard input as it is written.
                            Repeat --tap (or give the folder) for the rotated files
                            of a field tap (docs/TAP.md): missing files become gaps.
                            A bad line becomes an error event with its line number.
          --cdp http://HOST:PORT [--target URL-SUBSTRING]
                            a browser or WebView over the Chrome DevTools Protocol:
                            a JavaScript tap is injected into every page and frame
                            before its scripts (tools/taps/js/bridge-tap.js).
          --launch URL      the same with a headless Chromium started for the purpose.
          --webkit http://HOST:PORT [--target URL-SUBSTRING]
                            a WKWebView or WebKitGTK app over WebKit's inspector
                            protocol (WEBKIT_INSPECTOR_HTTP_SERVER, bridgescope-webkit
                            --inspector): the same tap as the page's bootstrap script.

        Specs: docs/FORMAT.md (archive, tap log), docs/CAPTURE.md (decoding, proxy),
        docs/CDP.md (DevTools and WebKit inspector recording).

        The archive is readable while it is written: it is flushed every 64 KiB or \
        250 ms, so a recorder killed with SIGKILL loses at most the last 250 ms. \
        Ctrl-C (SIGINT) or SIGTERM stops the recording and finishes the archive \
        cleanly; a second Ctrl-C ends it at once. Progress is shown on standard \
        error when it is a terminal.

        Exit status: 0 recorded cleanly; 1 recorded, but something was lost or could \
        not be decoded (error, gap or drop events in the archive); 2 usage or I/O error.

        Examples:
          bridgescope record -o session.bsz --read traffic.pcap
          bridgescope record -o session.bsz --proxy 127.0.0.1:8788 --upstream ws://127.0.0.1:8787/bridge
          bridgescope record -o session.bsz --tap app-tap.ndjson --redact
          bridgescope record -o session.bsz --tap bridge-tap/      # a field tap's files
          bridgescope record -o session.bsz --cdp http://127.0.0.1:9222 --duration 120
        """
    )

    @Option(name: .shortAndLong, help: ArgumentHelp("Archive to write (created or replaced).", valueName: "out.bsz"))
    var output: String

    // MARK: sources (exactly one)

    @Option(help: ArgumentHelp("Import an in-app tap log ('-' for standard input); repeat it, or give a folder, for a field tap's files in order.", valueName: "log.ndjson"))
    var tap: [String] = []

    @OptionGroup(title: "Packet capture")
    var capture: CaptureSourceOptions

    @OptionGroup(title: "Recording proxy")
    var proxy: ProxySourceOptions

    @OptionGroup(title: "Chrome DevTools Protocol")
    var devtools: CDPSourceOptions

    // MARK: stop conditions and content

    @Option(help: ArgumentHelp("With --interface, --proxy, --cdp, --webkit or --launch: stop after S seconds.", valueName: "s"))
    var duration: Double?

    @Option(help: ArgumentHelp("With --read, --interface, --proxy, --cdp, --webkit or --launch: stop after N messages.", valueName: "n"))
    var count: Int?

    @Flag(help: "Replace image and biometric fields (imageData, previewImageData, encryptedBlob, unencryptedBlob, photo) with a SHA-256 digest and length, whatever the source.")
    var redact = false

    // MARK: archive settings

    @Option(help: "zstd compression level, 1 (fastest, the default) to 19.")
    var level: Int32 = 1

    @Flag(help: "Do not show progress, even on a terminal.")
    var quiet = false

    @Option(help: "Log level on standard error: debug, info, notice, warning or error.")
    var logLevel: String = "warning"

    func validate() throws {
        let chosen = [!tap.isEmpty, capture.read != nil, capture.interface != nil, proxy.isChosen, devtools.isChosen, devtools.isWebKit].filter { $0 }.count
        guard chosen == 1 else {
            throw ValidationError(chosen == 0 ? "give a source: --read FILE, --interface IF, --proxy HOST:PORT, --tap FILE, --cdp http://HOST:PORT, --webkit http://HOST:PORT or --launch URL"
                                              : "give only one source")
        }
        if duration != nil && capture.interface == nil && !proxy.isChosen && !devtools.isChosen && !devtools.isWebKit {
            throw ValidationError("--duration needs --interface, --proxy, --cdp, --webkit or --launch")
        }
        if count != nil && !tap.isEmpty { throw ValidationError("--count needs --read, --interface, --proxy, --cdp, --webkit or --launch") }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be a positive number of seconds") }
        if let count, count <= 0 { throw ValidationError("--count must be positive") }
        guard (1...19).contains(level) else { throw ValidationError("--level must be between 1 and 19") }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be debug, info, notice, warning or error")
        }
    }

    /// Opens the chosen source; errors come before the archive is created.
    func openSource(logger: Logger) throws -> any RecordingSource {
        if !tap.isEmpty { return try TapSource(paths: tap) }
        if let options = try devtools.webKitOptions(maxMessages: count, duration: duration) {
            let source = try WebInspectorRecordingSource(options: options, logger: logger)
            printError("bridgescope record: recording \(options.endpoint) over WebKit's inspector protocol")
            return source
        }
        if devtools.isChosen {
            let source = try CDPRecordingSource(options: devtools.options(maxMessages: count, duration: duration), logger: logger)
            printError("bridgescope record: recording \(source.endpoint) over the DevTools protocol"
                       + (devtools.launch.map { " (headless Chromium opening \($0))" } ?? ""))
            return source
        }
        if let source = capture.source {
            return try PcapRecordingSource(source: source, options: CaptureRunOptions(maxMessages: count, duration: duration),
                                           logger: logger)
        }
        let proxySource = try ProxyRecordingSource(options: proxy.options(maxMessages: count, duration: duration)!, logger: logger)
        printError("bridgescope record: proxy listening on \(proxySource.webSocketURL), upstream \(proxySource.options.upstream)")
        return proxySource
    }

    func run() throws {
        let logThreshold = Logger.Level(rawValue: logLevel) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logThreshold
            return handler
        }
        let logger = Logger(label: "bridgescope.record")
        signal(SIGPIPE, SIG_IGN)
        StopSignal.install()
        var source: any RecordingSource
        do {
            // The archive is written in place (it must survive a crash), so it must not
            // be the capture or tap log it is made from.
            try OutputFile.checkNotInput(output, inputs: tap + [capture.read].compactMap { $0 })
            source = try openSource(logger: logger)
        } catch {
            printError("error: \(error)")
            throw Exit.usage
        }
        let showProgress = !quiet && isTerminal(2)
        let control = RecordingControl(
            shouldStop: { StopSignal.requested },
            progress: showProgress ? { p in printProgress(p.line) } : nil
        )
        let redactor = redact ? Redactor() : nil
        let trailer: ArchiveTrailer
        do {
            trailer = try ArchiveRecorder.record(&source, to: output, toolVersion: ToolVersion.current,
                                                 options: ArchiveWriterOptions(compressionLevel: level), control: control,
                                                 transform: redactor?.archiveTransform(), logger: logger)
        } catch {
            if showProgress { printError("") }
            printError("error: \(error)")
            throw Exit.usage
        }
        if showProgress {
            printError("")
            printError("\(output): \(trailer.records) messages, \(trailer.bytes) bytes, \(trailer.events) events")
        }
        var lost: [String] = []
        if trailer.errors > 0 { lost.append("\(trailer.errors) error event(s)") }
        if trailer.gaps > 0 { lost.append("\(trailer.gaps) gap(s) covering \(trailer.gapBytes) bytes") }
        if trailer.drops > 0 { lost.append("\(trailer.drops) dropped packet(s) or message(s)") }
        if !lost.isEmpty {
            printError("warning: \(output): " + lost.joined(separator: ", ")
                       + "; see the events (bridgescope cat --format pretty \(output))")
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
