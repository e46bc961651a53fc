import Logging

/// Something that yields a session's records in order: a tap log, an archive, a live
/// recorder. Pull-based, so the analyzer never holds more than one record.
public protocol AnalysisEventSource {
    /// The next record, nil at the end. Throws only when the input cannot be read at all;
    /// damaged records are yielded as capture `error` events instead.
    mutating func next() throws(AnalysisError) -> AnalysisEvent?
}

/// A tap log (JSON Lines, see ``TapLogParser``) read from a file or from memory.
public struct TapLogSource: AnalysisEventSource {
    private let reader: LineReader
    private let parser = TapLogParser()
    private let path: String
    private var lastTime: Int64 = 0

    /// Opens a tap log file.
    public init(path: String) throws(AnalysisError) {
        guard let r = LineReader(path: path) else {
            throw AnalysisError(.unreadableInput, "\(path): cannot open the file (does it exist, and is it readable?)")
        }
        self.reader = r
        self.path = path
    }

    /// Reads a tap log held in memory.
    public init(bytes: [UInt8], name: String = "memory") {
        self.reader = LineReader(bytes: bytes)
        self.path = name
    }

    /// The next record.
    public mutating func next() throws(AnalysisError) -> AnalysisEvent? {
        while let line = reader.next() {
            switch line {
            case .tooLong(let number, let bytes):
                return .captureEvent(seq: number, time: lastTime, connection: nil,
                                     kind: .error("line \(number): \(bytes) bytes, longer than the \(reader.maxLineBytes)-byte line limit; skipped"),
                                     record: number)
            case .line(let bytes, let number):
                guard let event = parser.parse(bytes, number: number, previousTime: lastTime) else { continue }
                lastTime = event.time
                return event
            }
        }
        if reader.readError { throw AnalysisError(.unreadableInput, "\(path): read error") }
        return nil
    }
}

extension SessionAnalyzer {
    /// Analyses every record of `source` and returns the report.
    public static func analyze<Source: AnalysisEventSource>(
        _ source: inout Source, name: String, configuration: AnalyzerConfiguration = AnalyzerConfiguration(),
        logger: Logger = Logger(label: "bridgescope.analysis")
    ) throws(AnalysisError) -> AnalysisReport {
        var analyzer = SessionAnalyzer(source: name, configuration: configuration, logger: logger)
        while let event = try source.next() { analyzer.feed(event) }
        return analyzer.finish()
    }
}
