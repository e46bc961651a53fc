import BridgeClock
import BridgeCapture
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a recording: opens the source through the libpcap driver, feeds
/// ``CaptureDecoder``, redacts when asked, reports progress, and hands every output to a
/// sink (the archive writer) in order, until the source ends or a stop condition holds.
///
/// The source is opened by `init`, so a wrong file, interface, permission or filter is
/// reported before the caller creates its archive; a live capture is active from then
/// on (packets wait in the kernel buffer until ``run(shouldStop:progress:sink:)``).
///
/// A class, not `Sendable`: it owns the libpcap handle; use it from one thread.
public final class CaptureRunner {
    /// The packet source.
    public let source: CaptureSource
    /// Options.
    public let options: CaptureRunOptions
    /// The capture's link type.
    public let linkType: LinkType
    private let logger: Logger
    private enum Opened {
        case file(PcapFileReader)
        case live(PcapLiveCapture)
    }
    private let opened: Opened
    private var used = false

    /// Opens `source`; throws ``CaptureError`` naming the file or interface and what to
    /// do, including for a link type the decoder does not know.
    public init(source: CaptureSource, options: CaptureRunOptions = .init(),
                logger: Logger = Logger(label: "bridgescope.capture")) throws(CaptureError) {
        self.source = source
        self.options = options
        self.logger = logger
        switch source {
        case .file(let path):
            let reader = try PcapFileReader(path: path)
            try Self.checkLinkType(reader.linkType, "capture file \(path)")
            opened = .file(reader)
            linkType = reader.linkType
        case .live(let liveOptions):
            let capture = try PcapLiveCapture(options: liveOptions)
            try Self.checkLinkType(capture.linkType, "interface \(liveOptions.interface)")
            opened = .live(capture)
            linkType = capture.linkType
        }
    }

    /// Records until the source ends, a stop condition holds, or `shouldStop` returns
    /// true (checked at least every 100 ms on a live capture, even an idle one; progress
    /// is called as often, so a caller can flush its archive there). Errors reading the
    /// source are ``CaptureError``s; errors thrown by `sink` end the recording and are
    /// rethrown. A runner records once.
    public func run(shouldStop: () -> Bool = { false }, progress: ((CaptureProgress) -> Void)? = nil,
                    sink: (CaptureOutput) throws -> Void) throws -> CaptureSummary {
        try withoutActuallyEscaping(sink) { sink in
            try record(shouldStop: shouldStop, progress: progress, sink: sink)
        }
    }

    private func record(shouldStop: () -> Bool, progress: ((CaptureProgress) -> Void)?,
                        sink: @escaping (CaptureOutput) throws -> Void) throws -> CaptureSummary {
        guard !used else { throw CaptureError(.live, "this capture of \(source) was already recorded") }
        used = true
        let decoder = CaptureDecoder(limits: options.limits, logger: logger)
        var state = RunState(options: options, decoder: decoder, sink: sink, started: Int64(Stopwatch.monotonic.now()))
        state.summary.linkType = linkType
        switch opened {
        case .file(let reader):
            var last: Int64 = 0
            while !state.done, !shouldStop() {
                let more: Void? = try reader.next { packet -> Void in
                    last = packet.time
                    try state.packet(packet)
                }
                if more == nil { state.stop("end of file") }
                if reader.packetsRead % 4096 == 0, let progress { progress(state.progress()) }
            }
            if !state.done { state.stop("stopped") }
            try state.finish(time: last)
        case .live(let capture):
            logger.debug("live capture started", metadata: ["interface": "\(capture.options.interface)", "link": "\(capture.linkType)"])
            var last: Int64 = WallClock.now.nanoseconds
            var lastStats = Int64(Stopwatch.monotonic.now())
            var droppedSoFar = 0
            func pollDrops() throws {
                guard let c = capture.counters() else { return }
                let dropped = c.dropped + c.interfaceDropped
                if dropped > droppedSoFar {
                    try state.drops(dropped - droppedSoFar, time: WallClock.now.nanoseconds)
                    droppedSoFar = dropped
                }
            }
            while !state.done {
                if shouldStop() { state.stop("stopped"); break }
                if let d = options.duration, Double(Int64(Stopwatch.monotonic.now()) - state.started) >= d * 1e9 {
                    state.stop("duration reached")
                    break
                }
                if capture.wait(milliseconds: 100) {
                    _ = try capture.readAvailable { packet in
                        last = packet.time
                        try state.packet(packet)
                    }
                }
                let now = Int64(Stopwatch.monotonic.now())
                if now - lastStats >= 1_000_000_000 {
                    lastStats = now
                    try pollDrops()
                }
                progress?(state.progress())
            }
            // Without immediate mode the kernel hands over a block that is not full only
            // after the block timeout: read what the last timeout releases.
            if !capture.options.immediate && summaryStoppedBeforeEnd(state) {
                let end = Int64(Stopwatch.monotonic.now()) + Int64(capture.options.bufferTimeout + 30) * 1_000_000
                while Int64(Stopwatch.monotonic.now()) < end {
                    if capture.wait(milliseconds: 10) {
                        _ = try capture.readAvailable { packet in
                            last = packet.time
                            try state.packet(packet)
                        }
                    }
                }
            }
            try pollDrops()
            try state.finish(time: max(last, WallClock.now.nanoseconds))
        }
        var summary = state.summary
        summary.statistics = decoder.statistics
        summary.elapsed = Int64(Stopwatch.monotonic.now()) - state.started
        progress?(state.progress())
        return summary
    }

    /// Whether the run stopped on a signal or the duration (not on `--count`, after
    /// which nothing more is recorded anyway).
    private func summaryStoppedBeforeEnd(_ state: RunState) -> Bool {
        state.summary.stopReason == "stopped" || state.summary.stopReason == "duration reached"
    }

    static func checkLinkType(_ type: LinkType, _ what: String) throws(CaptureError) {
        guard type.isSupported else {
            throw CaptureError(.unsupportedLinkType, "\(what) has link type \(type), which bridgescope does not decode "
                + "(supported: Ethernet, Linux cooked SLL/SLL2, BSD loopback NULL/LOOP, raw IP); capture on an "
                + "interface of one of those types, e.g. lo, eth0 or any")
        }
    }


}

/// The mutable part of one run: the decoder, the outputs buffer, counters, stop state.
private struct RunState {
    let options: CaptureRunOptions
    let decoder: CaptureDecoder
    let sink: (CaptureOutput) throws -> Void
    let started: Int64
    let redactor = Redactor()
    var summary = CaptureSummary(statistics: CaptureStatistics())
    var outputs: [CaptureOutput] = []
    var messages = 0
    var bytes = 0
    var done = false

    init(options: CaptureRunOptions, decoder: CaptureDecoder, sink: @escaping (CaptureOutput) throws -> Void, started: Int64) {
        self.options = options
        self.decoder = decoder
        self.sink = sink
        self.started = started
    }

    mutating func stop(_ reason: String) {
        guard !done else { return }
        done = true
        summary.stopReason = reason
    }

    mutating func packet(_ p: CapturedPacket) throws {
        decoder.receive(time: p.time, linkType: p.linkType, packet: p.bytes, into: &outputs)
        try emit()
    }

    mutating func drops(_ count: Int, time: Int64) throws {
        decoder.dropped(count, time: time, into: &outputs)
        try emit()
    }

    mutating func finish(time: Int64) throws {
        decoder.finish(time: time, into: &outputs)
        try emit()
    }

    mutating func emit() throws {
        guard !outputs.isEmpty else { return }
        defer { outputs.removeAll(keepingCapacity: true) }
        for output in outputs {
            guard case .message(let t, let d, let c, let b) = output else {
                try sink(output)
                continue
            }
            if let max = options.maxMessages, messages >= max { continue }
            var message = output
            var size = b.count
            if options.redact {
                let r = redactor.redact(b)
                if r.redactedFields > 0 {
                    summary.redactedFields += r.redactedFields
                    message = .message(time: t, direction: d, connection: c, bytes: r.bytes)
                    size = r.bytes.count
                }
            }
            try sink(message)
            messages += 1
            bytes += size
            if let max = options.maxMessages, messages >= max { stop("count reached") }
        }
    }

    func progress() -> CaptureProgress {
        CaptureProgress(messages: messages, bytes: bytes, connections: decoder.statistics.connections,
                        drops: decoder.statistics.drops, elapsed: Int64(Stopwatch.monotonic.now()) - started)
    }
}
