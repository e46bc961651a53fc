import BridgeArchive
import BridgeProtocol
import Logging

/// Something that yields a session's records in order: a tap log, an archive, a live
/// recorder. Pull-based, so the analyzer never holds more than one record.
public protocol AnalysisEventSource {
    /// The next record, nil at the end. Throws only when the input cannot be read at all;
    /// damaged records are yielded as capture `error` events instead.
    mutating func next() throws(AnalysisError) -> AnalysisEvent?

    /// Feeds every remaining record to `analyzer`, in order (what
    /// ``SessionAnalyzer/analyze(_:name:configuration:logger:)`` calls). The default
    /// feeds what ``next()`` yields; an archive reads its plain record lines a run at a
    /// time instead, without making an event of each first.
    mutating func feedAll(to analyzer: inout SessionAnalyzer) throws(AnalysisError)
}

extension AnalysisEventSource {
    /// Feeds what ``next()`` yields until it yields nil.
    public mutating func feedAll(to analyzer: inout SessionAnalyzer) throws(AnalysisError) {
        while let event = try next() { analyzer.feed(event) }
    }
}

/// A tap log (JSON Lines, docs/FORMAT.md §9) read from a file or from memory, through
/// BridgeArchive's ``TapLogParser`` (the one parser of the format: `record --tap` and
/// `analyze` read a log the same way). A line the parser refuses becomes a capture
/// `error` event naming the line, so the analysis goes on.
public struct TapLogSource: AnalysisEventSource {
    private let reader: LineReader
    private let parser = TapLogParser()
    private let path: String
    private var lastTime: Int64 = 0
    /// Entries of the last line not yet yielded (a `crossing` line gives two).
    private var queued: [TapLogParser.Entry] = []

    /// Opens a tap log file.
    public init(path: String) throws(AnalysisError) {
        guard let r = LineReader(path: path, maxLineBytes: BridgeArchiveFormat.maxLineBytes) else {
            throw AnalysisError(.unreadableInput, "\(path): cannot open the file (does it exist, and is it readable?)")
        }
        self.reader = r
        self.path = path
    }

    /// Reads a tap log from a byte source (standard input, a FIFO, a judged file).
    public init(source: any ArchiveByteSource, name: String) {
        self.reader = LineReader(source: source, maxLineBytes: BridgeArchiveFormat.maxLineBytes)
        self.path = name
    }

    /// Reads a tap log held in memory.
    public init(bytes: [UInt8], name: String = "memory") {
        self.reader = LineReader(bytes: bytes, maxLineBytes: BridgeArchiveFormat.maxLineBytes)
        self.path = name
    }

    /// The next record.
    public mutating func next() throws(AnalysisError) -> AnalysisEvent? {
        if !queued.isEmpty { return yield(queued.removeFirst()) }
        while let line = reader.next() {
            switch line {
            case .tooLong(let number, let bytes):
                return .captureEvent(seq: number, time: lastTime, connection: nil,
                                     kind: .error("line \(number): \(bytes) bytes, longer than the \(reader.maxLineBytes)-byte line limit; skipped"),
                                     record: number)
            case .line(let bytes, let number):
                queued = bytes.withUnsafeBytes { parser.parseLine($0, number: number) }
                guard !queued.isEmpty else { continue }
                return yield(queued.removeFirst())
            }
        }
        if reader.readError { throw AnalysisError(.unreadableInput, "\(path): read error") }
        return nil
    }

    private mutating func yield(_ entry: TapLogParser.Entry) -> AnalysisEvent {
        let event = Self.event(entry, previousTime: lastTime)
        lastTime = event.time
        return event
    }

    /// The analysis event of one parsed tap line.
    static func event(_ entry: TapLogParser.Entry, previousTime: Int64) -> AnalysisEvent {
        switch entry {
        case .message(let m):
            return .message(seq: m.line, time: m.time, direction: Direction(rawValue: m.direction.rawValue),
                            connection: m.connection ?? TapSource.defaultConnection, bytes: m.payload[...], record: m.line)
        case .event(let e):
            return .captureEvent(seq: e.line, time: e.event.time, connection: e.event.connection,
                                 kind: ArchiveEventSource.kind(of: e.event), record: e.line)
        case .error(let e):
            return .captureEvent(seq: e.line, time: previousTime, connection: nil,
                                 kind: .error("line \(e.line): \(e.reason)"), record: e.line)
        }
    }
}

extension SessionAnalyzer {
    /// Analyses every record of `source` and returns the report.
    public static func analyze<Source: AnalysisEventSource>(
        _ source: inout Source, name: String, configuration: AnalyzerConfiguration = AnalyzerConfiguration(),
        logger: Logger = Logger(label: "bridgescope.analysis")
    ) throws(AnalysisError) -> AnalysisReport {
        var analyzer = SessionAnalyzer(source: name, configuration: configuration, logger: logger)
        try source.feedAll(to: &analyzer)
        return analyzer.finish()
    }
}
