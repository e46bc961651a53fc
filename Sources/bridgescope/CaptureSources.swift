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

/// Runs the chosen libpcap source for `record`: SIGINT and SIGTERM stop it cleanly
/// (the sink sees every output, then the caller finalizes its archive), progress shows
/// on standard error when it is a terminal, and every output goes to `sink` in order.
/// Errors opening or reading the capture are ``CaptureError``s, to map to exit status 2.
func runCaptureSource(_ options: CaptureSourceOptions, logger: Logger,
                      sink: (CaptureOutput) throws -> Void) throws -> CaptureSummary {
    guard let source = options.source else { throw ValidationError("choose a source: --read FILE or --interface IF") }
    let stop = CaptureStopSignal()
    var handlers: [DispatchSourceSignal] = []
    for sig in [SIGINT, SIGTERM] {
        signal(sig, SIG_IGN)
        let handler = DispatchSource.makeSignalSource(signal: sig, queue: .global())
        handler.setEventHandler { stop.raise() }
        handler.resume()
        handlers.append(handler)
    }
    defer {
        for h in handlers { h.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
    let reporter = ProgressReporter()
    var last = CaptureProgress()
    let summary = try CaptureRunner(source: source, options: options.runOptions, logger: logger).run(
        shouldStop: stop.isRaised,
        progress: { p in
            last = p
            reporter.update(p)
        },
        sink: sink)
    reporter.finish(last)
    return summary
}
