import BridgeArchive

/// Builds a ``ReplaySession`` from archive items fed in file order (a value type fed
/// items; no I/O).
public struct ReplaySessionBuilder: Sendable {
    private var order: [String] = []
    private var connections: [String: RecordedConnection] = [:]
    private var skippedCounts: [String: (count: Int, reason: String)] = [:]
    private var skipped: [SkippedPart] = []
    private var findings: [String] = []
    private var lastSequence = 0
    private var kept = 0
    private var overflow = 0
    private var unknownDirection = 0

    /// An empty builder.
    public init() {}

    /// Adds one archive item.
    public mutating func add(_ item: ArchiveItem) {
        switch item {
        case .record(let r): add(record: r)
        case .event(let e): add(event: e)
        case .trailer: break
        case .finding(let f): add(finding: f)
        }
    }

    mutating func add(record r: ArchiveRecord) {
        lastSequence = r.seq
        guard r.direction.isKnown else { unknownDirection += 1; return }
        if connections[r.connection] == nil {
            guard connections.count < ReplayLimits.maxConnections else { overflow += 1; return }
            order.append(r.connection)
            connections[r.connection] = RecordedConnection(id: r.connection, startTime: r.time)
        }
        if connections[r.connection]!.isCut || connections[r.connection]!.closed {
            let reason = connections[r.connection]!.cutReason ?? "after the connection's close event"
            skippedCounts[r.connection, default: (0, reason)].count += 1
            return
        }
        guard kept < ReplayLimits.maxMessages else { overflow += 1; return }
        kept += 1
        connections[r.connection]!.messages.append(RecordedMessage(record: r))
        connections[r.connection]!.endTime = r.time
    }

    mutating func add(event e: ArchiveEvent) {
        lastSequence = e.seq
        switch e.kind {
        case .open:
            guard let id = e.connection, connections[id] == nil, connections.count < ReplayLimits.maxConnections else { return }
            order.append(id)
            connections[id] = RecordedConnection(id: id, startTime: e.time)
        case .close:
            guard let id = e.connection, connections[id] != nil, !connections[id]!.isCut else { return }
            connections[id]!.closed = true
            connections[id]!.endTime = e.time
        case .gap:
            let what = "\(e.bytes.map { "\($0) bytes" } ?? "bytes") of the \(e.direction?.rawValue ?? "") stream were never captured (gap at seq \(e.seq))"
            if let id = e.connection { cut(id, after: e.seq, reason: what) } else { cutOpen(after: e.seq, reason: what) }
        case .drop:
            cutOpen(after: e.seq, reason: "the capture dropped \(e.count ?? 0) packet(s) (drop at seq \(e.seq))")
        case .error:
            let what = "input that could not be recorded (error at seq \(e.seq)\(e.reason.map { ": \($0)" } ?? ""))"
            skipped.append(SkippedPart(connection: e.connection, messages: 1, reason: what))
            if let id = e.connection { cut(id, after: e.seq, reason: what) } else { cutOpen(after: e.seq, reason: what) }
        default:
            break
        }
    }

    mutating func add(finding f: ArchiveFinding) {
        findings.append(f.description)
        switch f.kind {
        case .countMismatch, .unexpectedLine:
            return
        case .missingTrailer:
            cutOpen(after: f.lastSequence, reason: "the archive ends without a trailer (recording cut after seq \(f.lastSequence))")
        default:
            cutOpen(after: f.lastSequence, reason: "archive damage after seq \(f.lastSequence): \(f.kind)")
        }
    }

    private mutating func cut(_ id: String, after seq: Int, reason: String) {
        guard connections[id] != nil, !connections[id]!.isCut, !connections[id]!.closed else { return }
        connections[id]!.cutAfterSequence = seq
        connections[id]!.cutReason = reason
    }

    private mutating func cutOpen(after seq: Int, reason: String) {
        for id in order { cut(id, after: seq, reason: reason) }
    }

    /// The session built so far.
    public func finish() -> ReplaySession {
        var notes = skipped
        for id in order {
            if let s = skippedCounts[id] { notes.append(SkippedPart(connection: id, messages: s.count, reason: s.reason)) }
        }
        if overflow > 0 {
            notes.append(SkippedPart(connection: nil, messages: overflow,
                                     reason: "over the replay limits (\(ReplayLimits.maxConnections) connections, \(ReplayLimits.maxMessages) messages)"))
        }
        if unknownDirection > 0 {
            notes.append(SkippedPart(connection: nil, messages: unknownDirection, reason: "records with an unknown direction"))
        }
        let list = order.compactMap { connections[$0] }.filter { !$0.messages.isEmpty }
        return ReplaySession(connections: list, skipped: notes, archiveFindings: findings)
    }
}
