/// Turns an archive's items into another file format, as a pure writer: it appends
/// bytes to a buffer and never does I/O (``ArchiveExport`` reads and writes). Exporters:
/// ``TapLogExporter`` (JSON Lines), ``HARExporter`` (HAR for Chrome DevTools), and the
/// pcapng exporter of `BridgeCapture`.
public protocol ArchiveExporter {
    /// Called once, with the archive's header, before any item.
    mutating func begin(_ header: ArchiveHeader, into out: inout [UInt8])
    /// Called with every record, event and trailer in archive order (findings are the
    /// caller's to report).
    mutating func write(_ item: ArchiveItem, into out: inout [UInt8])
    /// Called instead of ``write(_:into:)`` with every reading that is not a finding; a
    /// record's bytes are then a slice of its archive line. The default makes the item
    /// (copying the bytes) and calls ``write(_:into:)``.
    mutating func write(reading: ArchiveReading, into out: inout [UInt8])
    /// Called once after the last item.
    mutating func end(into out: inout [UInt8])
}

extension ArchiveExporter {
    /// Writes ``ArchiveReading/item``.
    public mutating func write(reading: ArchiveReading, into out: inout [UInt8]) {
        write(reading.item, into: &out)
    }
}

/// `bridgescope export`: reads an archive once and feeds every exporter, each writing
/// its own file (`-` is standard output).
public enum ArchiveExport {
    /// One output: a path (`-` for standard output) and the exporter that fills it.
    public struct Target {
        /// Where to write (created or replaced).
        public var path: String
        /// What to write.
        public var exporter: any ArchiveExporter

        /// Creates a target.
        public init(path: String, exporter: any ArchiveExporter) {
            self.path = path
            self.exporter = exporter
        }
    }

    /// Bytes gathered before each write: 256 KiB.
    static let chunk = 256 << 10

    /// Exports the archive at `archive` to every target and returns the archive's
    /// findings (damage is reported, and whatever was readable is exported).
    ///
    /// - Throws: ``ArchiveError`` when the archive cannot be opened or an output cannot
    ///   be created or written.
    /// With `readAhead` (worth it with a second core to use), decompression runs on a
    /// thread of its own, and for tap logs reading too (``ArchivePipeline``).
    public static func run(archive: String, to targets: [Target],
                           readAhead: Bool = false) throws(ArchiveError) -> [ArchiveFinding] {
        for t in targets { try OutputFile.checkNotInput(t.path, inputs: [archive]) }
        // A tap log keeps nothing of a reading: its lines can be slices of the reader's buffer.
        let reader = try ArchiveReader(source: PeekedInput.archive(archive),
                                       sharedLines: targets.allSatisfy { $0.exporter is TapLogExporter },
                                       readAhead: ArchiveReadAheadMode(readAhead))
        var outputs: [OutputFile] = []  // filled below
        for t in targets { outputs.append(try OutputFile(path: t.path, inputs: [archive])) }
        var exporters = targets.map(\.exporter)
        var buffers = [[UInt8]](repeating: [], count: targets.count)
        for i in exporters.indices {
            buffers[i].reserveCapacity(chunk + (64 << 10))
            exporters[i].begin(reader.header, into: &buffers[i])
        }
        // Tap logs only: the plain record lines of clean frames are read a run at once.
        var taps = exporters.compactMap { $0 as? TapLogExporter }
        let plain = { (run: ArraySlice<UInt8>, lines: [ArchiveReader.PlainLine]) throws(ArchiveError) in
            for i in taps.indices {
                run.withUnsafeBytes { run in taps[i].write(plainLines: lines, in: run, into: &buffers[i]) }
                if buffers[i].count >= chunk {
                    try outputs[i].write(buffers[i])
                    buffers[i].removeAll(keepingCapacity: true)
                }
            }
        }
        func write(_ reading: ArchiveReading) throws(ArchiveError) {
            if case .finding = reading { return }
            for i in exporters.indices {
                exporters[i].write(reading: reading, into: &buffers[i])
                if buffers[i].count >= chunk {
                    try outputs[i].write(buffers[i])
                    buffers[i].removeAll(keepingCapacity: true)
                }
            }
        }
        let onlyTaps = taps.count == exporters.count
        // With a core to spare, tap logs are read (and their messages checked) on a thread
        // of their own while this one writes (``ArchivePipeline``).
        var pipelined = false
        if readAhead && onlyTaps {
            pipelined = try ArchivePipeline.run(VerbatimLines(reader)) { (chunk) throws(ArchiveError) in
                switch chunk {
                case .plain(let run, let lines, _): try plain(run, lines)
                case .readings(let readings): for r in readings { try write(r) }
                }
            }
        }
        if !pipelined {
            while let reading = try onlyTaps ? reader.nextReading(accept: TapLogExporter.acceptsVerbatim, plain: plain) : reader.nextReading() {
                try write(reading)
            }
        }
        for i in exporters.indices {
            exporters[i].end(into: &buffers[i])
            try outputs[i].write(buffers[i])
        }
        for o in outputs { try o.commit() }
        return reader.findings
    }
}

/// The tap-log export's reading on ``ArchivePipeline``'s thread: plain lines whose
/// message ``TapLogExporter/acceptsVerbatim(_:_:_:)`` takes.
private final class VerbatimLines: ArchivePipelineSource {
    let reader: ArchiveReader

    init(_ reader: ArchiveReader) {
        self.reader = reader
    }

    func next(plain: (ArraySlice<UInt8>, [ArchiveReader.PlainLine], Void) -> Void) -> ArchiveReading? {
        reader.nextReading(accept: TapLogExporter.acceptsVerbatim, plain: { run, lines in plain(run, lines, ()) })
    }
}
