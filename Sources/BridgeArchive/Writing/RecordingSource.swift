#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import BridgeClock

/// A place messages are captured from, feeding an ``ArchiveWriter``.
///
/// Sources in this module: ``TapSource`` (an in-app tap log). The live libpcap
/// capture, pcap/pcapng files and the recording proxy live in `BridgeCapture` and
/// conform to this protocol too, so `bridgescope record` drives them all the same way
/// through ``ArchiveRecorder``.
public protocol RecordingSource {
    /// The header's `source`, `<kind>:<detail>` (e.g. `tap:log.ndjson`).
    var sourceDescription: String { get }
    /// The header's `filter` (a BPF expression), if any.
    var filter: String? { get }
    /// Captures until the input ends or `control.shouldStop()` says so, appending to
    /// `writer`. Must call `writer.flushIfDue()` at least by `writer.flushDeadline`
    /// (every 250 ms) even when no input arrives, and `control.report` now and then.
    /// Does not finish the writer.
    mutating func record(into writer: ArchiveWriter, control: RecordingControl) throws(ArchiveError)
}

/// What a running source asks its caller: whether to stop, and where progress goes.
public struct RecordingControl {
    /// Polled at least every 250 ms; true ends the recording cleanly (SIGINT/SIGTERM).
    public var shouldStop: () -> Bool
    /// Receives progress about every ``progressInterval``; nil for none.
    public var progress: ((RecordingProgress) -> Void)?
    /// Nanoseconds between progress reports. Default 250 ms.
    public var progressInterval: UInt64
    /// Time source for flushing and progress.
    public var clock: Stopwatch

    /// Creates a control.
    public init(shouldStop: @escaping () -> Bool = { false }, progress: ((RecordingProgress) -> Void)? = nil,
                progressInterval: UInt64 = 250_000_000, clock: Stopwatch = .monotonic) {
        self.shouldStop = shouldStop
        self.progress = progress
        self.progressInterval = progressInterval
        self.clock = clock
    }
}

/// How far a recording got.
public struct RecordingProgress: Sendable, Hashable {
    /// Records written.
    public var messages: Int
    /// Message bytes written.
    public var bytes: Int
    /// Distinct connections seen.
    public var connections: Int
    /// Packets the capture layer dropped.
    public var drops: Int
    /// Error events written (bad input lines, oversized messages).
    public var errors: Int
    /// Nanoseconds since the recording started.
    public var elapsed: UInt64

    /// Creates a snapshot (sources outside this module report through it).
    public init(messages: Int = 0, bytes: Int = 0, connections: Int = 0, drops: Int = 0, errors: Int = 0, elapsed: UInt64 = 0) {
        self.messages = messages
        self.bytes = bytes
        self.connections = connections
        self.drops = drops
        self.errors = errors
        self.elapsed = elapsed
    }

    /// `1234 messages, 2.1 MB, 3 connections, 0 drops, 0 errors, 12.3 s`.
    public var line: String {
        let mb = Double(bytes) / 1_000_000
        let secs = Double(elapsed) / 1e9
        return "\(messages) messages, \(String(format1: mb)) MB, \(connections) connections, \(drops) drops, \(errors) errors, \(String(format1: secs)) s"
    }
}

extension String {
    /// One decimal, without Foundation.
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}

/// Runs a source into a new archive: writes the header, runs the source, writes the
/// trailer. The archive is finished even when the source stops with an error (the
/// error is recorded as an `error` event, then rethrown).
public enum ArchiveRecorder {
    /// Records `source` into a new archive at `path` and returns its trailer.
    /// `transform`, when given, rewrites every message before it is stored, whatever the
    /// source (``ArchiveWriter/messageTransform``; redaction).
    public static func record(_ source: inout some RecordingSource, to path: String, toolVersion: String,
                              options: ArchiveWriterOptions = .init(), control: RecordingControl = .init(),
                              transform: ArchiveMessageTransform? = nil,
                              logger: Logger = Logger(label: "bridgescope.archive")) throws(ArchiveError) -> ArchiveTrailer {
        let header = ArchiveHeader(source: source.sourceDescription, host: hostName(), filter: source.filter,
                                   startTime: WallClock.now.nanoseconds, toolVersion: toolVersion)
        let writer = try ArchiveWriter(path: path, header: header, options: options, clock: control.clock, logger: logger)
        writer.messageTransform = transform
        do {
            try source.record(into: writer, control: control)
        } catch {
            _ = try? writer.append(ArchiveEvent(time: WallClock.now.nanoseconds, kind: .error,
                                            reason: "recording stopped: \(error.description)"))
            _ = try? writer.finish()
            throw error
        }
        return try writer.finish()
    }

    /// This machine's host name, if it has one.
    static func hostName() -> String? {
        var buf = [CChar](repeating: 0, count: 256)
        guard gethostname(&buf, buf.count - 1) == 0 else { return nil }
        let name = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }
}
