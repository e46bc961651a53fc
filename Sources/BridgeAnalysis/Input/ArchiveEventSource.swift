import BridgeArchive
import BridgeProtocol
import Logging

/// A session archive (`*.bsz`, docs/FORMAT.md) as ``AnalysisEvent``s.
///
/// - A record becomes a `.message` whose `record` (and `seq`) is the archive `seq`
///   (`bridgescope cat` shows it; the decompressed line number is `seq + 1`), with the
///   message bytes exactly as stored (`msg` sliced from the line, `text` and `b64`
///   decoded).
/// - An event line becomes a capture event: `open`, `close`, `gap` (`bytes`), `drop`
///   (`count`), `error` (`reason`, and the tap line when there is one); a kind this
///   build does not know becomes `.other`.
/// - Damage and inconsistencies (a truncated or corrupt frame, a dropped partial line,
///   an invalid line, a trailer that does not match, ...) become a capture `error`
///   event (rule `capture-error`), or `.lost` (`capture-gap`) for a `sequence-gap`; the
///   message names the byte offset in the compressed file, the decompressed line and
///   the last intact `seq`, and the record number is the `seq` the damaged line would
///   have had. The analysis goes on with whatever can be read after it. No
///   `missing-trailer` is reported after truncation or corruption.
/// - A record whose `dir` is neither `w2h` nor `h2w` becomes a capture `error` (as in
///   a tap log).
///
/// Read through BridgeArchive's one reader (``ArchiveReader``, whose
/// ``ArchiveInterpreter`` reads each record line once and hands out the message as a
/// slice of its line). The archive is opened once, so a FIFO or standard input works.
/// With `readAhead` (``BatchAnalyzer`` with a core to spare), reading and scanning run
/// on a thread of their own (``feedPipelined(to:)``), and decompression on a third when
/// the lines are long (``ArchiveReadAheadMode/forLongLines``).
/// Memory: the line being read and the zstd window.
public struct ArchiveEventSource: AnalysisEventSource {
    /// The archive's header.
    public let header: ArchiveHeader
    let reader: ArchiveReader
    /// Whether ``feedAll(to:)`` reads and scans on a thread of its own, the analysis
    /// going on on the caller's (with `readAhead`).
    let scansAhead: Bool
    var mapper = ArchiveEventMapper()
    private var pending: [AnalysisEvent] = []
    private var index = 0

    /// Opens the archive at `path` and reads its header. Throws ``AnalysisError``
    /// `unreadable-input` when the file cannot be opened, is not a zstd stream, has no
    /// valid header line, or has a format version this build does not read.
    public init(path: String, logger: Logger = Logger(label: "bridgescope.analysis")) throws(AnalysisError) {
        let file: FileByteSource
        do {
            file = try FileByteSource(path: path)
        } catch {
            throw AnalysisError(.unreadableInput, "\(path): \(error.message) [\(error.code)]")
        }
        try self.init(source: file, logger: logger)
    }

    /// Reads an archive from a byte source (standard input, a FIFO, a judged file).
    /// Throws as ``init(path:logger:)``. With `readAhead`, reading and scanning run on a
    /// thread of their own, and decompression on a third when the lines are long
    /// (worth it with a core to spare).
    public init(source: any ArchiveByteSource, readAhead: Bool = false,
                logger: Logger = Logger(label: "bridgescope.analysis")) throws(AnalysisError) {
        do {
            reader = try ArchiveReader(source: source, sharedLines: true, readAhead: readAhead ? .forLongLines : .off, logger: logger)
        } catch {
            throw AnalysisError(.unreadableInput, "\(source.name): \(error.message) [\(error.code)]")
        }
        scansAhead = readAhead
        header = reader.header
        mapper.lastTime = header.startTime
    }

    /// Reads an archive held in memory (tests, fuzzing). Throws as ``init(path:logger:)``.
    public init(bytes: [UInt8], name: String = "<memory>", readAhead: Bool = false) throws(AnalysisError) {
        do {
            reader = try ArchiveReader(source: MemoryByteSource(bytes, name: name), sharedLines: true,
                                       readAhead: readAhead ? .forLongLines : .off)
        } catch {
            throw AnalysisError(.unreadableInput, "\(name): \(error.message) [\(error.code)]")
        }
        scansAhead = readAhead
        header = reader.header
        mapper.lastTime = header.startTime
    }

    /// The next record.
    public mutating func next() throws(AnalysisError) -> AnalysisEvent? {
        while index == pending.count {
            pending.removeAll(keepingCapacity: true)
            index = 0
            guard let reading = reader.nextReading() else { return nil }
            mapper.map(reading, into: &pending)
        }
        index += 1
        return pending[index - 1]
    }

    /// Feeds every remaining record to `analyzer`: the plain record lines of clean frames
    /// a run at a time (``ArchiveReader/nextReading(plain:)``), each message a slice of
    /// the reader's buffer that the analyzer copies if it keeps it; the rest as
    /// ``next()`` maps it. With ``scansAhead``, the reading and scanning run on a thread
    /// of their own (``feedPipelined(to:)``).
    public mutating func feedAll(to analyzer: inout SessionAnalyzer) throws(AnalysisError) {
        while index < pending.count {
            analyzer.feed(pending[index])
            index += 1
        }
        pending.removeAll(keepingCapacity: true)
        index = 0
        if scansAhead, feedPipelined(to: &analyzer) { return }
        var lastTime = mapper.lastTime
        let scanner = Scanning(analyzer, reader: reader)
        while let reading = scanner.next(plain: { run, lines, scans in
            Self.feed(run: run, lines: lines, scans: scans, to: &analyzer, lastTime: &lastTime)
        }) {
            feed(reading, to: &analyzer, lastTime: &lastTime)
        }
        mapper.lastTime = lastTime
    }

    /// The scanning half of ``feedAll(to:)``, stateless per message: reads the archive
    /// (``ArchiveReader/nextReading(accept:plain:)``) with the analyzer's envelope
    /// scanner as the test that spares the walk over a message.
    final class Scanning {
        // Unchecked: only this object's one thread touches them, one access at a time,
        // and the dynamic checks of a class property cost 7% of the reading thread.
        @exclusivity(unchecked) var scanner: EnvelopeScanner
        let usesScanner: Bool
        /// Scans of the current run, by where the message's bytes are: their address
        /// until the run is handed on, then their offset in the run (changed in place:
        /// no scan is copied into another list).
        @exclusivity(unchecked) var scans: [(offset: Int, envelope: ScannedEnvelope)] = []

        /// The reader it reads (on the pipeline's thread with ``feedPipelined(to:)``).
        let reader: ArchiveReader
        init(_ analyzer: SessionAnalyzer, reader: ArchiveReader) {
            scanner = analyzer.scanner
            usesScanner = analyzer.usesEnvelopeScanner
            self.reader = reader
        }

        /// The next reading; runs of plain lines go to `plain` with the scans of their
        /// messages (keyed by offset in the run).
        func next(plain: (ArraySlice<UInt8>, [ArchiveReader.PlainLine], [(offset: Int, envelope: ScannedEnvelope)]) -> Void) -> ArchiveReading? {
            // A message that comes last in its line is scanned where the reader meets it:
            // if the scanner takes it, it is one JSON text and need not be walked to find
            // its end, and the scan is handed on with it.
            let accept: ArchiveInterpreter.PlainAccept = { [self] msg, line, f in
                guard let direction = ArchiveEventSource.direction(line, f.dir), let s = scanner.scan(msg, direction: direction) else { return false }
                scans.append((Int(bitPattern: msg.baseAddress!), s))
                return true
            }
            return reader.nextReading(accept: usesScanner ? accept : nil, plain: { (run, lines) in
                defer { self.scans.removeAll(keepingCapacity: true) }
                // A scan of the line the run stopped at (which comes back as a reading)
                // ends up past the run's lines and is passed by; none outlives its run.
                let base = run.withUnsafeBytes { Int(bitPattern: $0.baseAddress!) }
                for i in scans.indices {
                    scans[i].offset &-= base
                }
                plain(run, lines, scans)
            })
        }
    }

    /// The analysis half of ``feedAll(to:)`` for a run of plain lines: each message
    /// with its scan when it has one (matched by its offset in the run). The scans come
    /// from ``Scanning``'s scanner (on another thread when pipelined): a scan of an action
    /// not in ``Action/known`` gets the analyzer's scanner's number for it first
    /// (``EnvelopeScanner/reintern(_:in:)``).
    static func feed(run: ArraySlice<UInt8>, lines: [ArchiveReader.PlainLine], scans: [(offset: Int, envelope: ScannedEnvelope)],
                     to analyzer: inout SessionAnalyzer, lastTime: inout Int64) {
        var next = 0
        // Read once per run: each use of these static members calls their accessor, which
        // checks a `swift_once`, and matching a `Direction?` compares strings.
        let webToHost = Direction.webToHost, hostToWeb = Direction.hostToWeb
        // One borrow of the run for all its lines: a scanned message goes on as a pointer
        // into it (a slice retained and released the buffer per message).
        run.withUnsafeBytes { r in
            for l in lines {
                let f = l.fields
                let line = l.range.lowerBound  // the line's offset in `r`
                let direction: Direction
                let way = Self.way(r, (line + f.dir.lowerBound)..<(line + f.dir.upperBound))
                switch way {
                case .webToHost: direction = webToHost
                case .hostToWeb: direction = hostToWeb
                case .other:
                    // Not w2h or h2w: the mapper says so, as for any record.
                    let dir = String(decoding: r[(line + f.dir.lowerBound)..<(line + f.dir.upperBound)], as: UTF8.self)
                    let connection = String(decoding: r[(line + f.conn.lowerBound)..<(line + f.conn.upperBound)], as: UTF8.self)
                    analyzer.feed(ArchiveEventMapper.message(seq: f.seq, time: f.time, direction: ArchiveDirection(rawValue: dir),
                                                             connection: connection, bytes: []))
                    lastTime = f.time
                    continue
                }
                let msg = UnsafeRawBufferPointer(rebasing: r[(line + f.msg.lowerBound)..<(line + f.msg.upperBound)])
                let name = UnsafeRawBufferPointer(rebasing: r[(line + f.conn.lowerBound)..<(line + f.conn.upperBound)])
                let at = line + f.msg.lowerBound
                while next < scans.count, scans[next].offset < at { next += 1 }
                // Straight to the analyzer: no ``AnalysisEvent`` is built and taken apart again.
                func fast(_ s: ScannedEnvelope) -> Bool {
                    analyzer.feedScanned(time: f.time, direction: direction, way: way, connectionBytes: name, message: msg,
                                         record: f.seq, scanned: s)
                }
                var scanned: ScannedEnvelope?
                if f.accepted, next < scans.count, scans[next].offset == at {
                    let found = next
                    next += 1
                    // A known action is read by its index; another by its number in the
                    // analyzer's scanner, given here. A scan that needs none is read where
                    // it is in `scans`.
                    if scans[found].envelope.knownActionIndex == nil {
                        var s = scans[found].envelope
                        analyzer.scanner.reintern(&s, in: msg)
                        if fast(s) {
                            lastTime = f.time
                            continue
                        }
                        scanned = s
                    } else if fast(scans[found].envelope) {
                        lastTime = f.time
                        continue
                    } else {
                        scanned = scans[found].envelope
                    }
                }
                // A slice of the run only for a message the fast path does not take.
                let bytes = run[(run.startIndex + line + f.msg.lowerBound)..<(run.startIndex + line + f.msg.upperBound)]
                analyzer.feedMessage(time: f.time, direction: direction, connectionBytes: name, bytes: bytes, record: f.seq, scanned: scanned)
                lastTime = f.time
            }
        }
    }

    /// The analysis half of ``feedAll(to:)`` for any other reading.
    mutating func feed(_ reading: ArchiveReading, to analyzer: inout SessionAnalyzer, lastTime: inout Int64) {
        mapper.lastTime = lastTime
        mapper.map(reading, into: &pending)
        lastTime = mapper.lastTime
        for e in pending { analyzer.feed(e) }
        pending.removeAll(keepingCapacity: true)
    }

    /// `w2h` or `h2w` from a `dir` string's contents.
    static func direction(_ line: UnsafeRawBufferPointer, _ r: Range<Int>) -> Direction? {
        switch way(line, r) {
        case .webToHost: return .webToHost
        case .hostToWeb: return .hostToWeb
        case .other: return nil
        }
    }

    /// ``direction(_:_:)`` as a ``MessageWay`` (`.other`: neither), without a `Direction`.
    static func way(_ line: UnsafeRawBufferPointer, _ r: Range<Int>) -> MessageWay {
        guard r.count == 3, line[r.lowerBound + 1] == UInt8(ascii: "2") else { return .other }
        switch (line[r.lowerBound], line[r.lowerBound + 2]) {
        case (UInt8(ascii: "w"), UInt8(ascii: "h")): return .webToHost
        case (UInt8(ascii: "h"), UInt8(ascii: "w")): return .hostToWeb
        default: return .other
        }
    }


    static func kind(of e: ArchiveEvent) -> CaptureEventKind {
        switch e.kind {
        case .open: return .open
        case .close: return .close
        case .gap: return .gap(bytes: Int64(e.bytes ?? 0))
        case .drop: return .drop(count: Int64(e.count ?? 0))
        case .error:
            let reason = e.reason ?? "the recorder reported an error"
            if let line = e.line { return .error("tap line \(line): \(reason)") }
            if let bytes = e.bytes { return .error("\(reason) (\(bytes) bytes)") }
            return .error(reason)
        case .crossing:
            return .crossing(direction: e.direction.flatMap { $0.isKnown ? Direction(rawValue: $0.rawValue) : nil },
                             reason: e.reason ?? "")
        default: return .other(e.kind.rawValue)
        }
    }
}
