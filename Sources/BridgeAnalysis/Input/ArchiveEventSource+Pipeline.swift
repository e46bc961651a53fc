import BridgeArchive
import BridgeProtocol

extension ArchiveEventSource {
    /// What the reading thread hands the analysis (``feedPipelined(to:)``).
    enum ScannedChunk {
        /// A run of plain record lines (a copy in a buffer that goes back to the reading
        /// thread once read), with the scans of their messages by offset in the run
        /// (their `action` left empty: the analysis thread reads it again).
        case plain(run: [UInt8], lines: [ArchiveReader.PlainLine], scans: [(offset: Int, envelope: ScannedEnvelope)])
        /// Other readings, in order.
        case readings([ArchiveReading])
    }

    /// Readings gathered before they are handed over together.
    static let readingsPerChunk = 256
    /// Chunks that may wait between the two threads (each a run of lines, at most a
    /// frame's: about 256 KiB, more with large messages).
    static let chunksInFlight = 8
    /// The buffers runs are copied into: the chunks in flight, one being read and one
    /// being filled. They go round and are reused, never freed on the other thread: the
    /// reader's own buffer is never shared (which would copy it on its next use), and a
    /// large block freed on another thread is given back to the kernel (docs/PERFORMANCE.md).
    static let runBuffers = chunksInFlight + 2

    /// The reader and its scanning, handed to the reading thread for the length of a
    /// ``feedPipelined(to:)`` call (the caller does not touch them meanwhile).
    private final class Lent: @unchecked Sendable {
        let reader: ArchiveReader
        let scanning: Scanning
        init(_ reader: ArchiveReader, _ scanning: Scanning) {
            self.reader = reader
            self.scanning = scanning
        }
    }

    /// ``feedAll(to:)`` on two threads: a new one reads the archive and scans each
    /// message (stateless per message: ``Scanning``), the caller's runs the analysis
    /// (ordered and stateful), with at most ``chunksInFlight`` chunks between them. The
    /// analyzer gets exactly what it gets on one thread, in the same order. Returns
    /// false when no thread could be made (nothing was read then).
    mutating func feedPipelined(to analyzer: inout SessionAnalyzer) -> Bool {
        let pipe = ThreadPipe<ScannedChunk>(capacity: Self.chunksInFlight)
        let buffers = ThreadPipe<[UInt8]>(capacity: Self.runBuffers + 1)
        for _ in 0..<Self.runBuffers { buffers.put([]) }
        let done = ThreadPipe<Bool>(capacity: 1)
        let lent = Lent(reader, Scanning(analyzer))
        let started = ThreadPipe<ScannedChunk>.spawn {
            Self.scan(lent, into: pipe, buffers: buffers)
            done.put(true)
        }
        guard started else { return false }
        // The reading thread is waited for on every way out, so the reader is never
        // used by both threads.
        defer {
            pipe.cancel()
            buffers.finish()
            _ = done.take()
        }
        var lastTime = mapper.lastTime
        while let chunk = pipe.take() {
            switch chunk {
            case .plain(let run, let lines, let scans):
                Self.feed(run: run[...], lines: lines, scans: scans, reintern: true, to: &analyzer, lastTime: &lastTime)
                buffers.put(run)
            case .readings(let readings):
                for r in readings { feed(r, to: &analyzer, lastTime: &lastTime) }
            }
        }
        mapper.lastTime = lastTime
        return true
    }

    /// The reading thread: every reading and run, in order, until the end or until the
    /// consumer stops taking them.
    private static func scan(_ lent: Lent, into pipe: ThreadPipe<ScannedChunk>, buffers: ThreadPipe<[UInt8]>) {
        var readings: [ArchiveReading] = []
        var open = true
        while open, let reading = lent.scanning.next(lent.reader, plain: { run, lines, scans in
            if !readings.isEmpty {
                open = open && pipe.put(.readings(readings))
                readings = []
            }
            guard open, var copy = buffers.take() else {
                open = false
                return
            }
            copy.removeAll(keepingCapacity: true)
            copy.append(contentsOf: run)
            // The action strings stay on this thread (``EnvelopeScanner/reintern(_:in:)``).
            var scans = scans
            for i in scans.indices { scans[i].envelope.action = "" }
            open = pipe.put(.plain(run: copy, lines: lines, scans: scans))
        }) {
            readings.append(reading)
            if readings.count >= readingsPerChunk {
                open = pipe.put(.readings(readings))
                readings = []
            }
        }
        if open, !readings.isEmpty { open = pipe.put(.readings(readings)) }
        if open { pipe.finish() }
    }
}
