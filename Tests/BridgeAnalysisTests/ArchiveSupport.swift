import BridgeTestSupport
import BridgeAnalysis
import BridgeArchive
import Foundation

/// Builds session archives for tests with BridgeArchive's writer.
enum Archives {
    /// A fresh temporary directory.
    static func tempDir() throws -> URL {
        let dir = TestScratch.rootURL
            .appendingPathComponent("bridgescope-archive-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Writes `events` (as a tap log reader yields them) into a new archive at `path`:
    /// messages as records, capture events as event lines. Returns the writer's trailer,
    /// or nil when `finish` is false (an archive whose recorder was killed after a flush).
    @discardableResult
    static func write(_ events: [AnalysisEvent], to path: String, finish: Bool = true,
                      flushPolicy: FlushPolicy = FlushPolicy()) throws -> ArchiveTrailer? {
        let start = events.first?.time ?? 0
        let writer = try ArchiveWriter(path: path, header: ArchiveHeader(source: "test:\(path)", startTime: start, toolVersion: "test"),
                                       options: ArchiveWriterOptions(flushPolicy: flushPolicy))
        for e in events {
            switch e {
            case .message(_, let time, let dir, let conn, let bytes, _):
                try writer.append(time: time, direction: ArchiveDirection(rawValue: dir.rawValue), connection: conn, payload: Array(bytes))
            case .captureEvent(_, let time, let conn, let kind, _):
                try writer.append(archiveEvent(time: time, connection: conn, kind: kind))
            }
        }
        guard finish else {
            try writer.flush()
            return nil
        }
        return try writer.finish(endTime: (events.last?.time ?? 0) + 1)
    }

    static func archiveEvent(time: Int64, connection: String?, kind: CaptureEventKind) -> ArchiveEvent {
        switch kind {
        case .open: return ArchiveEvent(time: time, kind: .open, connection: connection)
        case .close: return ArchiveEvent(time: time, kind: .close, connection: connection)
        case .gap(let b): return ArchiveEvent(time: time, kind: .gap, connection: connection, direction: .hostToWeb, bytes: Int(b))
        case .drop(let c): return ArchiveEvent(time: time, kind: .drop, connection: connection, count: Int(c))
        case .error(let text), .lost(let text): return ArchiveEvent(time: time, kind: .error, connection: connection, reason: text)
        case .crossing(let d, let reason):
            return ArchiveEvent(time: time, kind: .crossing, connection: connection,
                                direction: d.map { ArchiveDirection(rawValue: $0.rawValue) }, reason: reason)
        case .other(let k): return ArchiveEvent(time: time, kind: ArchiveEvent.Kind(rawValue: k), connection: connection)
        }
    }

    /// Every event of a tap log file.
    static func events(ofTapLog path: String) throws -> [AnalysisEvent] {
        var source = try TapLogSource(path: path)
        var out: [AnalysisEvent] = []
        while let e = try source.next() { out.append(e) }
        return out
    }

    /// Every event of an archive file.
    static func events(ofArchive path: String) throws -> [AnalysisEvent] {
        var source = try ArchiveEventSource(path: path)
        var out: [AnalysisEvent] = []
        while let e = try source.next() { out.append(e) }
        return out
    }

    /// Analyses an archive file.
    static func analyze(_ path: String, configuration: AnalyzerConfiguration = AnalyzerConfiguration()) throws -> AnalysisReport {
        var source = try SessionInput.open(path)
        return try SessionAnalyzer.analyze(&source, name: (path as NSString).lastPathComponent, configuration: configuration)
    }
}
