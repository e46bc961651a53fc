import Logging

/// Reads a session archive: validates the header when opened, then yields records,
/// events and the trailer in file order, with a finding wherever the archive is
/// damaged, truncated or inconsistent. Never throws after opening, never traps, never
/// hangs: every complete line before any damage is returned.
///
/// Use it as a `Sequence` (`for item in reader`), or call ``nextReading()`` for records
/// whose bytes are a slice of their line (no copy). One pass only. Not `Sendable`: one
/// task owns a reader.
///
/// Checks beyond the line reader's (``ArchiveLineReader``) are the
/// ``ArchiveInterpreter``'s: each line must decode (`invalid-line`), `seq` must grow by 1
/// (`sequence-gap`), nothing may follow the trailer (`unexpected-line`), the trailer's
/// counts must match what was read (`count-mismatch`), and an archive without a
/// trailer gets `missing-trailer`. ``nextReading()`` hands out records whose bytes are a
/// slice of their line (what the analyzer reads); the `Sequence` interface copies them
/// into ``ArchiveRecord``s.
public final class ArchiveReader: Sequence, IteratorProtocol {
    /// The header (line 1), validated.
    public let header: ArchiveHeader
    /// The header line exactly as in the archive.
    public let headerLine: ArchiveLine
    /// The trailer, once read.
    public var trailer: ArchiveTrailer? { interpreter.trailer }
    /// Every finding so far, in order.
    public var findings: [ArchiveFinding] { interpreter.findings }
    /// What was read so far, counted like a trailer (`endTime` unused).
    public var counts: ArchiveTrailer { interpreter.counts }
    /// The `seq` of the last record or event read intact.
    public var lastSequence: Int { interpreter.lastSequence }

    /// The decompressed lines (after the header), for a consumer that interprets them on
    /// another task (the analyzer's concurrent path).
    package let lines: ArchiveLineReader
    /// The interpretation so far.
    package private(set) var interpreter: ArchiveInterpreter
    let logger: Logger
    var ended = false
    var pending: [ArchiveReading] = []
    var pendingIndex = 0
    var plainLines: [PlainLine] = []

    /// Opens the archive at `path` and reads its header.
    ///
    /// - Throws: ``ArchiveError`` when the file cannot be opened, is not a zstd stream,
    ///   has no valid header line, or has a `formatVersion` this build does not read.
    public convenience init(path: String, logger: Logger = Logger(label: "bridgescope.archive")) throws(ArchiveError) {
        try self.init(source: FileByteSource(path: path), logger: logger)
    }

    /// Reads an archive from any byte source and reads its header. With `salvage`, the
    /// lines of damaged frames are handed out too, marked (``ArchiveLine/verified``).
    /// With `sharedLines`, lines (and records' bytes) are slices of one reused buffer
    /// (``ArchiveLineReader/sharedLines``): for a consumer that keeps nothing of a reading
    /// once it asks for the next frame's. With `readAhead`, decompression runs on a
    /// thread of its own (``ArchiveReadAheadMode``; worth it with a second core).
    public init(source: any ArchiveByteSource, maxLineBytes: Int = BridgeArchiveFormat.maxLineBytes, salvage: Bool = false,
                sharedLines: Bool = false, readAhead: ArchiveReadAheadMode = .off,
                logger: Logger = Logger(label: "bridgescope.archive")) throws(ArchiveError) {
        let name = source.name
        lines = try ArchiveLineReader(source: source, maxLineBytes: maxLineBytes, salvage: salvage, sharedLines: sharedLines,
                                      readAhead: readAhead)
        self.logger = logger
        guard let first = lines.next() else {
            throw ArchiveError(.notAnArchive, path: name, "the file is empty: not a bridgescope archive")
        }
        switch first {
        case .finding(let f):
            throw ArchiveError(.notAnArchive, path: name, "no header line could be read: \(f.message)")
        case .line(let line):
            header = try Self.readHeader(line, name: name, decoder: ArchiveLineDecoder())
            headerLine = line
        }
        interpreter = ArchiveInterpreter(header: header)
        logger.debug("archive opened", metadata: ["path": "\(name)", "formatVersion": "\(header.formatVersion)"])
    }

    static func readHeader(_ line: ArchiveLine, name: String, decoder: ArchiveLineDecoder) throws(ArchiveError) -> ArchiveHeader {
        // The version is checked before the rest of the header, so a newer archive gets
        // "unsupported version" rather than a complaint about some new member.
        if case .object(let o)? = try? BridgeJSONLine.parse(line.bytes), o["bridgescope"]?.stringValue == BridgeArchiveFormat.headerMarker {
            guard let n = o["formatVersion"]?.numberValue, let v = n.int64, n.isIntegerLexeme else {
                throw ArchiveError(.invalidHeader, path: name, "the header's \"formatVersion\" is missing or not an integer")
            }
            guard BridgeArchiveFormat.supportedVersions.contains(Int(v)) else {
                let s = BridgeArchiveFormat.supportedVersions
                let supported = s.lowerBound == s.upperBound ? "version \(s.lowerBound)" : "versions \(s.lowerBound) to \(s.upperBound)"
                throw ArchiveError(.unsupportedVersion, path: name,
                                   "archive format version \(v) is not supported: this build reads \(supported)\(v > s.upperBound ? "; use a newer bridgescope" : "")")
            }
            do throws(ArchiveLineError) {
                guard case .header(let h) = try decoder.decode(line.bytes, formatVersion: Int(v)) else {
                    throw ArchiveLineError(reason: "not a header")
                }
                return h
            } catch {
                throw ArchiveError(.invalidHeader, path: name, "line 1 is not a valid header: \(error.reason)")
            }
        }
        let preview = String(decoding: line.bytes.prefix(60), as: UTF8.self)
        throw ArchiveError(.notAnArchive, path: name,
                           "line 1 is not a bridgescope header ({\"bridgescope\":\"session\",...}) but: \(preview)")
    }

    /// The next record, event, trailer or finding; nil at the end.
    public func next() -> ArchiveItem? {
        nextReading()?.item
    }

    /// The next item with the archive line it came from, exactly as in the archive
    /// (nil for findings about the archive as a whole or its compressed bytes); nil at
    /// the end.
    public func nextWithLine() -> (item: ArchiveItem, line: ArchiveLine?)? {
        nextReading().map { ($0.item, $0.line) }
    }

    /// The next reading (a record's bytes a slice of its line, not copied); nil at the end.
    public func nextReading() -> ArchiveReading? {
        while pendingIndex == pending.count {
            guard refillPending() else { return nil }
            interpretNextItem()
        }
        pendingIndex += 1
        return pending[pendingIndex - 1]
    }

    /// Empties the handed-out readings; false once the end was read.
    func refillPending() -> Bool {
        pending.removeAll(keepingCapacity: true)
        pendingIndex = 0
        return !ended
    }

    /// Interprets the line reader's next item into ``pending``, or the end.
    func interpretNextItem() {
        if let item = lines.next() {
            interpreter.take(item, into: &pending)
        } else {
            ended = true
            interpreter.finish(compressedOffset: lines.compressedOffset, into: &pending)
        }
    }

    /// Reads every remaining item and returns the records (findings stay in ``findings``).
    public func readAllRecords() -> [ArchiveRecord] {
        var out: [ArchiveRecord] = []
        while let item = next() {
            if case .record(let r) = item { out.append(r) }
        }
        return out
    }
}

extension ArchiveReader {
    /// ``nextReading()`` for a consumer that reads clean lines a run at a time (`cat`,
    /// `export --jsonl`, the analyzer): the plain record lines of verified frames that
    /// need nothing said about them (``ArchiveInterpreter/takePlainLines(_:each:)``) go
    /// to `plain` in runs (their bytes with newlines, a slice of the reader's buffer to
    /// let go of before the next call, and each line with its members), counted but not
    /// handed out as readings; everything else comes back as readings, in order.
    /// `accept`: the consumer's test that a message is one JSON text, which spares the
    /// walk over it (``ArchiveInterpreter/plainFields(_:accept:)``). `plain` is called
    /// after every run `accept` may have seen, with no lines when its first line comes
    /// back as a reading: what the consumer noted in `accept` is about that run only.
    package func nextReading<E: Error>(
        accept: ArchiveInterpreter.PlainAccept? = nil,
        plain: (_ run: ArraySlice<UInt8>, _ lines: [PlainLine]) throws(E) -> Void
    ) throws(E) -> ArchiveReading? {
        while pendingIndex == pending.count {
            guard refillPending() else { return nil }
            let whole = try lines.withPlainRun { (run, newlines) throws(E) -> (lines: Int, bytes: Int) in
                // The list is moved out of `self` for the run: one access, not one per line.
                var found: [PlainLine] = []
                swap(&found, &plainLines)
                defer { swap(&found, &plainLines) }
                found.removeAll(keepingCapacity: true)
                // The reader found the newlines already: none is searched for again.
                let taken = run.withUnsafeBytes { b in
                    newlines.withOffsets { ends, base in
                        interpreter.takePlainLines(b, accept: accept, newlines: ends, newlineBase: base) { line, fields in
                            let start = b.baseAddress!.distance(to: line.baseAddress!)
                            found.append(PlainLine(range: start..<(start + line.count), fields: fields))
                        }
                    }
                }
                // Also with no lines: `accept` may have met the first line, which comes back
                // as a reading; the consumer lets go of what it noted for this run.
                try plain(run.prefix(taken.bytes), found)
                return taken
            }
            if !whole { interpretNextItem() }
        }
        pendingIndex += 1
        return pending[pendingIndex - 1]
    }

    /// A plain record line of a run: where it is in the run (offsets from the run's
    /// start, without its newline), and its members (ranges relative to the line's start).
    package struct PlainLine {
        /// The line's bytes in the run.
        package var range: Range<Int>
        /// Its members.
        package var fields: ArchiveInterpreter.PlainFields
    }
}
