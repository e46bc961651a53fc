import BridgeCapture
import BridgeArchive
import BridgeProtocol
import Logging

/// A libpcap source for ``ArchiveRecorder``: a pcap/pcapng file (`record --read`) or a
/// live interface (`record --interface`). Runs a ``CaptureRunner`` and writes its
/// outputs as archive lines: messages as records, and `open`, `close`, `gap`, `drop`
/// and `error` outputs as events of the same kind (drops also end up in the trailer).
///
/// The capture is opened by `init` (``CaptureRunner/init(source:options:logger:)``), so
/// a wrong file, interface, permission or filter is reported before an archive exists.
///
/// A class, not `Sendable`: it owns the libpcap handle; use it from one thread.
public final class PcapRecordingSource: RecordingSource {
    /// The opened capture.
    public let runner: CaptureRunner
    /// What the run did, once ``record(into:control:)`` returned.
    public private(set) var summary: CaptureSummary?

    /// `pcap-file:<path>` or `pcap:<interface>`.
    public var sourceDescription: String {
        switch runner.source {
        case .file(let path): return "pcap-file:\(path)"
        case .live(let o): return "pcap:\(o.interface)"
        }
    }

    /// The BPF filter of a live capture.
    public var filter: String? {
        if case .live(let o) = runner.source { return o.filter }
        return nil
    }

    /// Opens `source`; throws ``CaptureError`` naming the file or interface.
    /// Redaction is better left to the archive writer (``Redactor/archiveTransform(onRedacted:)``),
    /// which covers every source; `options.redact` also works here.
    public init(source: CaptureSource, options: CaptureRunOptions = .init(),
                logger: Logger = Logger(label: "bridgescope.capture")) throws(CaptureError) {
        runner = try CaptureRunner(source: source, options: options, logger: logger)
    }

    /// Captures until the file ends, a stop condition holds or `control.shouldStop()`;
    /// a capture error (a damaged file, a failing interface) becomes an
    /// ``ArchiveError`` with code ``ArchiveError/Code/capture``.
    public func record(into writer: ArchiveWriter, control: RecordingControl) throws(ArchiveError) {
        var lastReport: Int64 = -1
        let interval = Int64(clamping: control.progressInterval)
        let report: (CaptureProgress) -> Void = { p in
            try? writer.flushIfDue()
            guard let progress = control.progress, lastReport < 0 || p.elapsed - lastReport >= interval else { return }
            lastReport = p.elapsed
            progress(RecordingProgress(messages: writer.counts.records, bytes: writer.counts.bytes,
                                       connections: p.connections, drops: writer.counts.drops,
                                       errors: writer.counts.errors, elapsed: UInt64(max(0, p.elapsed))))
        }
        do {
            let summary = try runner.run(shouldStop: control.shouldStop, progress: report) { output in
                try Self.write(output, to: writer)
            }
            self.summary = summary
            if let progress = control.progress {
                progress(RecordingProgress(messages: writer.counts.records, bytes: writer.counts.bytes,
                                           connections: summary.statistics.connections, drops: writer.counts.drops,
                                           errors: writer.counts.errors, elapsed: UInt64(max(0, summary.elapsed))))
            }
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw ArchiveError(.capture, "\(error)")
        }
    }

    /// Writes one capture output as an archive record or event.
    public static func write(_ output: CaptureOutput, to writer: ArchiveWriter) throws(ArchiveError) {
        switch output {
        case .message(let t, let d, let c, let bytes):
            try writer.append(time: t, direction: ArchiveDirection(d), connection: c, payload: bytes)
        case .open(let t, let c, _):
            try writer.append(ArchiveEvent(time: t, kind: .open, connection: c))
        case .close(let t, let c, let reason):
            try writer.append(ArchiveEvent(time: t, kind: .close, connection: c, reason: reason))
        case .gap(let t, let c, let d, let bytes):
            try writer.append(ArchiveEvent(time: t, kind: .gap, connection: c, direction: ArchiveDirection(d), bytes: bytes))
        case .drop(let t, let count):
            try writer.append(ArchiveEvent(time: t, kind: .drop, count: count,
                                           reason: "the capture layer dropped \(count) packet\(count == 1 ? "" : "s")"))
        case .error(let t, let c, let text):
            try writer.append(ArchiveEvent(time: t, kind: .error, connection: c, reason: text))
        }
    }
}

extension ArchiveDirection {
    /// The archive spelling of a protocol direction (the same `w2h` / `h2w`).
    public init(_ direction: Direction) {
        self.init(rawValue: direction.rawValue)
    }
}

extension ArchiveError.Code {
    /// The capture source failed part-way (a damaged file, an interface gone).
    public static let capture = ArchiveError.Code(rawValue: "capture")
}
