/// Exports records as a tap log (JSON Lines, docs/FORMAT.md §9): one line per record,
/// `{"t":<ns>,"dir":"w2h"|"h2w","conn":"<id>","msg":<bytes verbatim>}` (or `text`/`b64`
/// under the archive's own rules), so `bridgescope record --tap` reads it back to the
/// same records. Events, header and trailer are not written (a tap log has no place for
/// them). Times are nanoseconds, so they must be at least 10^15 (after 1970-01-12) to be
/// read back as nanoseconds rather than milliseconds.
public struct TapLogExporter: ArchiveExporter {
    private let encoder = ArchiveLineEncoder()

    /// Creates an exporter.
    public init() {}

    /// Writes nothing: a tap log has no header.
    public mutating func begin(_ header: ArchiveHeader, into out: inout [UInt8]) {}

    /// Writes a line per record.
    public mutating func write(_ item: ArchiveItem, into out: inout [UInt8]) {
        guard case .record(let r) = item else { return }
        let ok = r.payload.withUnsafeBytes { p in
            encoder.record(seq: nil, time: r.time, direction: r.direction, connection: r.connection, payload: p,
                           encoding: ArchivePayloadEncoding.preferred(for: p), into: &out)
        }
        if ok { out.append(0x0A) }
    }

    /// Writes a line per record, from the slice of its archive line (no copy).
    public mutating func write(reading: ArchiveReading, into out: inout [UInt8]) {
        guard case .record(let r, _) = reading else { return }
        let ok = r.payload.withUnsafeBytes { p in
            encoder.record(seq: nil, time: r.time, direction: r.direction, connection: r.connection, payload: p,
                           encoding: ArchivePayloadEncoding.preferred(for: p), into: &out)
        }
        if ok { out.append(0x0A) }
    }

    /// What ``write(plainLine:fields:into:)`` needs a plain line read with: a message the
    /// encoder stores verbatim (`msg`) needs no walk to find its end, and a message
    /// accepted so is written verbatim without a second check.
    package static func acceptsVerbatim(_ msg: UnsafeRawBufferPointer, _ line: UnsafeRawBufferPointer, _ fields: ArchiveInterpreter.PlainFields) -> Bool {
        // `msg` is a slice of one decompressed line: it holds no LF.
        ArchivePayloadEncoding.isVerbatimJSON(msg, inLine: true)
    }

    /// ``write(plainLine:fields:into:)`` of each of `lines`, whose bytes are in `run`: one
    /// call per run, so a caller whose exporter and buffer are captured variables checks
    /// its exclusive access to them once per run, not twice per line.
    package mutating func write(plainLines lines: [ArchiveReader.PlainLine], in run: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        for l in lines {
            write(plainLine: UnsafeRawBufferPointer(rebasing: run[l.range]), fields: l.fields, into: &out)
        }
    }

    /// Writes the line of a plain record line (``ArchiveReader/PlainLine``: `line` its
    /// bytes, `fields` where its members are, read with ``acceptsVerbatim``): the bytes
    /// ``write(reading:into:)`` writes for the same record.
    mutating func write(plainLine b: UnsafeRawBufferPointer, fields f: ArchiveInterpreter.PlainFields, into out: inout [UInt8]) {
        // The writer's layout: `{` and the line's own tail are the tap line.
        if let tail = Self.verbatimTail(b, f, maxLineBytes: encoder.maxLineBytes) {
            out.append(UInt8(ascii: "{"))
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[tail...]))
            out.append(0x0A)
            return
        }
        let p = UnsafeRawBufferPointer(rebasing: b[f.msg])
        // `dir` and `conn` are plain strings (``ArchiveInterpreter/plainString(_:_:)``):
        // copied with their quotes, as written.
        let ok = encoder.tapRecord(time: f.time,
                                   quotedDirection: UnsafeRawBufferPointer(rebasing: b[(f.dir.lowerBound - 1)..<(f.dir.upperBound + 1)]),
                                   quotedConnection: UnsafeRawBufferPointer(rebasing: b[(f.conn.lowerBound - 1)..<(f.conn.upperBound + 1)]),
                                   payload: p, encoding: f.accepted ? .message : ArchivePayloadEncoding.preferred(for: p, inLine: true), into: &out)
        if ok { out.append(0x0A) }
    }

    /// Writes nothing.
    public mutating func end(into out: inout [UInt8]) {}
}
