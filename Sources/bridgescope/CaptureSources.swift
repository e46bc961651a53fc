import ArgumentParser
import BridgeCapture
import Dispatch
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The libpcap sources of `bridgescope record` (`--read`, `--interface`) and their
/// options, as an option group the record command includes with `@OptionGroup`.
struct CaptureSourceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Read packets from a pcap or pcapng file.", valueName: "file"))
    var read: String?

    @Option(help: ArgumentHelp("Capture live on an interface (lo, eth0, any); needs root or CAP_NET_RAW.", valueName: "if"))
    var interface: String?

    @Option(help: ArgumentHelp("With --interface: capture TCP port N (BPF \"tcp port N\").", valueName: "n"))
    var port: Int?

    @Option(help: ArgumentHelp("With --interface: a BPF filter, instead of --port.", valueName: "bpf"))
    var filter: String?

    @Option(help: ArgumentHelp("With --interface: the kernel capture buffer in bytes (default 32 MiB).", valueName: "bytes"))
    var bufferSize: Int = 32 << 20

    @Option(help: ArgumentHelp("With --interface: bytes kept per packet (default 262144).", valueName: "bytes"))
    var snaplen: Int = 262_144

    @Option(help: ArgumentHelp("With --interface: stop after S seconds.", valueName: "s"))
    var duration: Double?

    @Option(help: ArgumentHelp("Stop after N messages.", valueName: "n"))
    var count: Int?

    @Flag(help: "Replace image and biometric fields (imageData, previewImageData, encryptedBlob, unencryptedBlob, photo) with a SHA-256 digest and length.")
    var redact = false

    /// Whether a libpcap source was chosen.
    var isChosen: Bool { read != nil || interface != nil }

    func validate() throws {
        if read != nil && interface != nil { throw ValidationError("--read and --interface cannot be combined") }
        if interface == nil {
            if port != nil || filter != nil || duration != nil {
                throw ValidationError("--port, --filter and --duration need --interface")
            }
        }
        if port != nil && filter != nil { throw ValidationError("--port and --filter cannot be combined (put the port in the filter)") }
        if let port, !(1...65535).contains(port) { throw ValidationError("--port must be 1 to 65535") }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be a positive number of seconds") }
        if let count, count <= 0 { throw ValidationError("--count must be positive") }
        if bufferSize < 65536 || bufferSize > Int(Int32.max) { throw ValidationError("--buffer-size must be 65536 to 2147483647 bytes") }
        if snaplen < 128 || snaplen > 262_144 { throw ValidationError("--snaplen must be 128 to 262144 bytes") }
    }

    /// The source these options describe (nil when none was chosen).
    var source: CaptureSource? {
        if let read { return .file(read) }
        guard let interface else { return nil }
        return .live(LiveCaptureOptions(interface: interface, filter: filter ?? port.map(LiveCaptureOptions.portFilter),
                                        snapshotLength: Int32(snaplen), bufferSize: Int32(bufferSize)))
    }

    /// Redaction and stop conditions.
    var runOptions: CaptureRunOptions {
        CaptureRunOptions(redact: redact, maxMessages: count, duration: duration)
    }
}

/// Opens the chosen libpcap source before `record` creates its archive, so a wrong
/// file, interface, permission or filter fails early with a ``CaptureError`` (exit 2).
func openCaptureSource(_ options: CaptureSourceOptions, logger: Logger) throws -> CaptureRunner {
    guard let source = options.source else { throw ValidationError("choose a source: --read FILE or --interface IF") }
    return try CaptureRunner(source: source, options: options.runOptions, logger: logger)
}

/// Runs an opened source for `record`: stops when `shouldStop` says so (the record
/// command's SIGINT/SIGTERM flag; nil installs handlers here), shows progress on standard
/// error when it is a terminal and `quiet` is false, and hands every output to `sink`
/// in order (the caller maps them to archive records and events, and flushes its
/// writer from `sink`). Returns the decoder's counters and why it stopped.
func runCaptureSource(_ runner: CaptureRunner, shouldStop: (() -> Bool)? = nil, quiet: Bool = false,
                      sink: (CaptureOutput) throws -> Void) throws -> CaptureSummary {
    var handlers: [DispatchSourceSignal] = []
    let stop = CaptureStopSignal()
    if shouldStop == nil {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let handler = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            handler.setEventHandler { stop.raise() }
            handler.resume()
            handlers.append(handler)
        }
    }
    defer {
        for h in handlers { h.cancel() }
        if shouldStop == nil {
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
        }
    }
    let reporter = ProgressReporter(enabled: quiet ? false : nil)
    var last = CaptureProgress()
    let summary = try runner.run(
        shouldStop: shouldStop ?? stop.isRaised,
        progress: { p in
            last = p
            reporter.update(p)
        },
        sink: sink)
    reporter.finish(last)
    return summary
}
