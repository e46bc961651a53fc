import BridgeJSON

/// Parses one archive line with the line limits (for the header check).
enum BridgeJSONLine {
    static func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        try JSONParser(limits: BridgeArchiveFormat.lineLimits).parse(bytes).value
    }
}

extension ArchiveReader {
    /// Pulls one line-reader item and turns it into zero or more archive items.
    func pull() {
        guard let item = lines.next() else {
            ended = true
            if trailer == nil {
                report(.missingTrailer, at: lines.compressedOffset, line: nil,
                       "the archive has no trailer: the recording was not finished or its end was lost (last seq \(lastSequence))")
            }
            return
        }
        switch item {
        case .finding(var f):
            f.lastSequence = lastSequence
            findings.append(f)
            pendingItems.append((.finding(f), nil))
        case .line(let line):
            take(line)
        }
    }

    private func take(_ line: ArchiveLine) {
        let entry: ArchiveEntry
        do throws(ArchiveLineError) {
            entry = try decoder.decode(line.bytes, formatVersion: header.formatVersion)
        } catch {
            report(.invalidLine, at: line.frameOffset, line: line.number, "line \(line.number) skipped: \(error.reason)", raw: line)
            return
        }
        if trailer != nil {
            report(.unexpectedLine, at: line.frameOffset, line: line.number, "line \(line.number) follows the trailer")
        }
        switch entry {
        case .header:
            report(.unexpectedLine, at: line.frameOffset, line: line.number, "line \(line.number) is a second header; skipped", raw: line)
        case .record(let r):
            sequence(r.seq, line: line)
            counts.records += 1
            counts.bytes += r.payload.count
            pendingItems.append((.record(r), line))
        case .event(let e):
            sequence(e.seq, line: line)
            counts.count(e)
            pendingItems.append((.event(e), line))
        case .trailer(let t):
            if trailer != nil {
                report(.unexpectedLine, at: line.frameOffset, line: line.number, "line \(line.number) is a second trailer; skipped", raw: line)
                return
            }
            trailer = t
            pendingItems.append((.trailer(t), line))
            if !t.sameCounts(as: counts) {
                report(.countMismatch, at: line.frameOffset, line: line.number,
                       "the trailer counts \(describe(t)) but \(describe(counts)) were read")
            }
        }
    }

    private func sequence(_ seq: Int, line: ArchiveLine) {
        if seq != lastSequence + 1 {
            let what = seq > lastSequence + 1 ? "\(seq - lastSequence - 1) lines missing" : "out of order"
            report(.sequenceGap, at: line.frameOffset, line: line.number,
                   "seq \(seq) follows seq \(lastSequence) (\(what))")
        }
        lastSequence = seq
    }

    private func describe(_ t: ArchiveTrailer) -> String {
        "\(t.records) records, \(t.events) events, \(t.bytes) bytes, \(t.drops) drops, \(t.gaps) gaps (\(t.gapBytes) bytes), \(t.errors) errors"
    }

    func report(_ kind: ArchiveFinding.Kind, at offset: Int, line: Int?, _ message: String, raw: ArchiveLine? = nil) {
        let f = ArchiveFinding(kind: kind, compressedOffset: offset, line: line, lastSequence: lastSequence, message: message)
        findings.append(f)
        pendingItems.append((.finding(f), raw))
    }
}
