import BridgeJSON
import BridgeProtocol
import Logging

/// The analyzer: a streaming state machine fed one ``AnalysisEvent`` at a time.
///
/// Each message is decoded with ``EnvelopeDecoder`` (every per-message rule, with the
/// record number and byte offset; an undecodable message is a finding and analysis goes
/// on), then paired by correlationId per connection, following `acknowledged` to the
/// final response, and checked against the session rules (BRG100–BRG199, capture
/// rules BRG200–BRG249; see `docs/RULES.md`); a two-sided recording's `@native` side is
/// read only to compare with its `@web` side (BRG300–BRG309, ``CrossingTracker``).
/// ``finish()`` closes the session and returns the ``AnalysisReport``.
///
/// Memory grows with the number of open requests; findings, journey steps and
/// remembered ids are capped (``AnalyzerConfiguration/Limits``). Times are capture
/// times (the record's `time`); envelope timestamps are used only for
/// `timestamp-regression`.
public struct SessionAnalyzer: Sendable {
    /// The configuration in force.
    public let configuration: AnalyzerConfiguration
    /// The session's name in the report.
    public let source: String
    let logger: Logger
    let decoder = EnvelopeDecoder()
    /// The fast path to the plain envelopes (``EnvelopeScanner``); the decoder reads the rest.
    var scanner = EnvelopeScanner()
    /// Whether plain envelopes take the scanner's path (the tests turn it off to compare).
    var usesEnvelopeScanner = true

    /// ``AnalyzerConfiguration/timeouts`` by action kind (``ActionTimeouts/byKind()``).
    let kindTimeouts: [Int64]
    /// ``MessageKind/byKnownIndex`` and ``ActionKind/byKnownIndex``, held here for
    /// ``MessageKind/init(knownIndex:in:)`` and ``ActionKind/init(knownIndex:in:)``: a
    /// static array's accessor checks its `swift_once` on every use (twice per message).
    let messageKinds = MessageKind.byKnownIndex, actionKinds = ActionKind.byKnownIndex

    /// Every connection's state, in order of first sight (``connectionOrder``).
    var connections: [ConnectionState] = []
    var connectionIndex: [String: Int] = [:]
    var connectionOrder: [String] = []
    /// Short connection names as numbers, with their index in ``connections``.
    var connectionKeys = ConnectionKeys()
    var findings: [ReportFinding] = []
    var ruleCounts: [RuleID: Int] = [:]
    var latency: LatencyRecorder
    var summary = SessionSummary()
    /// Two-sided recordings' `@web` and `@native` sides compared (``CrossingTracker``).
    var crossings: CrossingTracker
    var finished: AnalysisReport? {
        didSet { isFinished = finished != nil }
    }
    /// Whether ``finished`` is set (kept by its `didSet`): tested per message, where
    /// `finished == nil` copied the whole optional report out (a 152-byte memcpy).
    private(set) var isFinished = false

    /// Where the journeys go as the analysis goes, instead of into the report
    /// (``JourneySink``); set before the first record. Nil: the steps are kept.
    package var sink: (any JourneySink)?
    /// Streaming: stored findings not yet filed with their step (filed after the record
    /// that made them, when the record's own step exists), with their emission number.
    var unfiled: [(order: Int, finding: ReportFinding)] = []
    /// Streaming: connections with settled steps to hand over.
    var dirty: [Int] = []
    /// Streaming: findings made before any connection existed (the first one's, at the end).
    var orphans: [(order: Int, finding: ReportFinding)] = []

    /// Creates an analyzer for one session.
    public init(source: String = "", configuration: AnalyzerConfiguration = AnalyzerConfiguration(),
                logger: Logger = Logger(label: "bridgescope.analysis")) {
        self.source = source
        self.configuration = configuration
        self.logger = logger
        self.kindTimeouts = configuration.timeouts.byKind()
        self.latency = LatencyRecorder(keepSlowest: configuration.limits.slowestPerAction,
                                       maxActions: configuration.limits.maxActions, sampling: configuration.fleetSession)
        self.crossings = CrossingTracker(limits: configuration.crossing, identifierBytes: configuration.limits.maxIdentifierBytes)
    }

    /// Feeds one record. Records are expected in capture order; a record whose time is
    /// earlier than the previous one is analysed at the time it claims.
    public mutating func feed(_ event: AnalysisEvent) {
        feed(event, scanned: nil)
    }

    /// ``feed(_:)`` for a message whose envelope the caller has scanned already
    /// (``EnvelopeScanner``, with this analyzer's direction rules).
    mutating func feed(_ event: AnalysisEvent, scanned: ScannedEnvelope?) {
        switch event {
        case .message(_, let time, let direction, let connection, let bytes, let record):
            feedMessage(time: time, direction: direction, connection: connection, bytes: bytes, record: record, scanned: scanned)
        case .captureEvent(_, let time, let connection, let kind, let record):
            guard countRecord(at: time) else { return }
            summary.captureEvents += 1
            // A two-sided recording's side: the crossing analysis hears of it, and an
            // `@native` side has no journey of its own.
            let sided = connection.flatMap(BridgeSide.split)
            if let sided { crossingEvent(sided, kind: kind, record: record) }
            captureEvent(time: time, connection: connection.map(clip), kind: kind, record: record, step: sided?.side != .native)
        }
        if sink != nil { handOver() }
    }

    /// ``feed(_:scanned:)`` of a message, without an ``AnalysisEvent`` built and taken
    /// apart again (``ArchiveEventSource``'s runs of plain record lines).
    mutating func feedMessage(time: Int64, direction: Direction, connection: String, bytes: ArraySlice<UInt8>,
                              record: Int, scanned: ScannedEnvelope?) {
        guard countRecord(at: time) else { return }
        summary.messages += 1
        summary.bytes += Int64(bytes.count)
        // A two-sided recording's sides are compared; only `@web` is analysed as a
        // connection (the journey's view: nothing counted twice).
        if let sided = BridgeSide.split(connection) {
            crossingMessage(sided, time: time, direction: direction, bytes: bytes, record: record)
            if sided.side == .native { return }
        }
        message(time: time, direction: direction, connection: clip(connection), bytes: bytes, record: record, scanned: scanned)
        if sink != nil { handOver() }
    }

    /// ``feedMessage(time:direction:connection:bytes:record:scanned:)`` with the
    /// connection named by its bytes (a record line's `conn`), for a message
    /// ``feedScanned(time:direction:connectionBytes:message:record:scanned:)`` did not
    /// take: the name is made a `String`, and kept (``ConnectionKeys``) so that the next
    /// messages of the connection take the fast path.
    mutating func feedMessage(time: Int64, direction: Direction, connectionBytes name: UnsafeRawBufferPointer,
                              bytes: ArraySlice<UInt8>, record: Int, scanned: ScannedEnvelope?) {
        let connection = String(decoding: name, as: UTF8.self)
        feedMessage(time: time, direction: direction, connection: connection, bytes: bytes, record: record, scanned: scanned)
        // Remembered once the name has a connection of its own (not the overflow's), and
        // while clipping leaves it as it is; never a two-sided recording's side, whose
        // messages the crossing analysis reads too.
        if name.count <= Swift.min(ConnectionKeys.maxNameBytes, configuration.limits.maxIdentifierBytes),
           !BridgeSide.isSided(name),
           let slot = connectionIndex[connection] {
            connectionKeys.add(name, slot: slot)
        }
    }

    /// A scanned message `message` (valid for the call) of a connection whose name is
    /// kept (``ConnectionKeys``: a name seen before, of at most 16 bytes, found by two
    /// numbers, with no `String` made or compared); false, and nothing done, for another
    /// connection.
    /// `way` is `direction`'s (the caller read it from the record's bytes).
    mutating func feedScanned(time: Int64, direction: Direction, way: MessageWay, connectionBytes name: UnsafeRawBufferPointer,
                              message: UnsafeRawBufferPointer, record: Int, scanned: ScannedEnvelope) -> Bool {
        guard let slot = connectionKeys.slot(of: name) else { return false }
        guard countRecord(at: time) else { return true }
        summary.messages += 1
        summary.bytes += Int64(message.count)
        scannedMessage(scanned, message, time: time, direction: direction, way: way, record: record, slot: slot)
        if sink != nil { handOver() }
        return true
    }

    /// Counts a record at `time` in the summary; false (nothing counted) once finished.
    private mutating func countRecord(at time: Int64) -> Bool {
        guard !isFinished else { return false }
        summary.records += 1
        if summary.firstTime == nil || time < summary.firstTime! { summary.firstTime = time }
        if summary.lastTime == nil || time > summary.lastTime! { summary.lastTime = time }
        return true
    }

    /// Ends the session: requests still open become `unanswered-request`, connections are
    /// checked as a whole (`host-silent`, `missing-host-ready`, `journey-incomplete`),
    /// and the report is assembled.
    /// Calling it again returns the same report; feeding after it is ignored.
    public mutating func finish() -> AnalysisReport {
        if let finished { return finished }
        let end = summary.lastTime ?? 0
        for i in connections.indices {
            withConnection(at: i) { a, c in a.finishConnection(&c, end: end) }
        }
        finishCrossings()
        if sink != nil { settleEverything() }
        let ordered = findings.enumerated().sorted { a, b in
            let ra = a.element.records.first ?? Int.max, rb = b.element.records.first ?? Int.max
            if ra != rb { return ra < rb }
            return a.offset < b.offset
        }.map(\.element)
        let counts = ruleCounts.keys.sorted().map { rule in
            let entry = RuleCatalogue.standard[rule]
            return RuleCount(rule: rule, slug: entry?.slug ?? rule.rawValue, severity: entry?.severity ?? .error,
                             count: ruleCounts[rule]!)
        }
        let reports = connections.map { c -> ConnectionReport in
            ConnectionReport(id: c.id, firstTime: c.firstTime, lastTime: c.lastTime, webMessages: c.webMessages,
                                    hostMessages: c.hostMessages, requests: c.requests, unanswered: c.ids.openCount,
                                    steps: c.steps, stepsOmitted: c.stepsOmitted,
                                    outcome: c.outcome ?? JourneyOutcome(state: "none"),
                                    hostVersion: c.hostVersion, environment: c.environment)
        }
        summary.requests = reports.reduce(0) { $0 + $1.requests }
        summary.unanswered = reports.reduce(0) { $0 + $1.unanswered }
        logger.debug("analysed \(summary.records) records, \(findings.count) findings", metadata: ["source": "\(source)"])
        let report = AnalysisReport(source: source, summary: summary, findings: ordered, ruleCounts: counts,
                                    latency: latency.report(), connections: reports, timeouts: configuration.timeouts)
        finished = report
        if let sink {
            sink.finish(report, journeys: connections.map {
                JourneyTail(streamed: $0.streams, findings: ConnectionState.reportOrder($0.journeyFindings))
            })
        }
        return report
    }

    /// Records a finding (stored while its rule is under the cap, counted always).
    mutating func emit(_ finding: ReportFinding) {
        let n = (ruleCounts[finding.rule] ?? 0) + 1
        ruleCounts[finding.rule] = n
        if n <= configuration.limits.maxFindingsPerRule {
            findings.append(finding)
            if sink != nil { unfiled.append((findings.count - 1, finding)) }
        }
    }

    /// Runs `body` on the state of connection `requested` (created on first sight) in
    /// place: the table is moved out of `self` for the call, so neither it nor the state
    /// is copied, and `body` can change both the analyzer and the connection.
    mutating func withConnection(_ requested: String, time: Int64, _ body: (inout SessionAnalyzer, inout ConnectionState) -> Void) {
        withConnection(at: slot(requested, time: time), body)
    }

    /// ``withConnection(_:time:_:)`` for the connection at `index` of ``connections``.
    mutating func withConnection(at index: Int, _ body: (inout SessionAnalyzer, inout ConnectionState) -> Void) {
        // Swapped out and back: a copy and an empty array assigned retained and released
        // the table once per message.
        var table: [ConnectionState] = []
        swap(&table, &connections)
        table.withUnsafeMutableBufferPointer { p in body(&self, &p[index]) }
        let ready = sink != nil && !table[index].settled.isEmpty
        swap(&table, &connections)
        if ready { dirty.append(index) }
    }

    /// The index of a connection's state in ``connections``, made on first sight; past
    /// ``AnalyzerConfiguration/Limits/maxConnections`` the overflow connection's.
    mutating func slot(_ requested: String, time: Int64) -> Int {
        // A session has a few connections: comparing names is cheaper than hashing one.
        // (``connectionOrder`` and ``connections`` grow together: same indices.)
        if connectionOrder.count <= 16 {
            if let i = connectionOrder.firstIndex(of: requested) { return i }
        } else if let i = connectionIndex[requested] {
            return i
        }
        var id = requested
        if connectionOrder.count >= configuration.limits.maxConnections {
            id = Self.overflowConnection
            if let i = connectionIndex[id] { return i }
            emit(ReportFinding(rule: .captureError,
                               message: "more than \(configuration.limits.maxConnections) connections; the others are analysed together as \(id)",
                               connection: requested, time: time))
        }
        connectionOrder.append(id)
        connectionIndex[id] = connections.count
        var state = ConnectionState(id: id, time: time, rememberIDs: configuration.limits.maxRememberedIDsPerConnection)
        // A two-sided recording's `@web` side is kept whole: its crossing findings may
        // mark any earlier step (``JourneySink``).
        state.streams = sink != nil && BridgeSide.split(id) == nil
        connections.append(state)
        return connections.count - 1
    }

    /// The connection that collects records past ``AnalyzerConfiguration/Limits/maxConnections``.
    static let overflowConnection = "(other connections)"

    /// Cuts an identifier read from the wire to the configured length.
    func clip(_ s: consuming String) -> String {
        Self.clip(s, to: configuration.limits.maxIdentifierBytes)
    }

    /// `s` cut to `max` bytes (and "…" added) when longer. `s` is consumed: a string made
    /// for the call (an action's, an id's made from its bytes) is handed back as it is,
    /// where a borrowed one was retained to be returned and released by the caller (two
    /// reference counts per message on the scanner's path).
    static func clip(_ s: consuming String, to max: Int) -> String {
        guard s.utf8.count > max else { return s }
        return String(decoding: s.utf8.prefix(max), as: UTF8.self) + "…"
    }

    /// `step`: whether the event is a step of the connection's journey (not on an `@native` side).
    mutating func captureEvent(time: Int64, connection: String?, kind: CaptureEventKind, record: Int, step: Bool = true) {
        let name: String
        var rule: RuleID?
        var detail: String?
        switch kind {
        case .open: name = "connection.open"
        case .close: name = "connection.close"
        case .gap(let bytes):
            name = "capture.gap"
            rule = .captureGap
            emit(ReportFinding(rule: .captureGap, message: "the recorder lost \(bytes) bytes of the stream here",
                               connection: connection, records: [record], time: time))
        case .drop(let count):
            name = "capture.drop"
            rule = .captureGap
            emit(ReportFinding(rule: .captureGap, message: "the capture dropped \(count) packets",
                               connection: connection, records: [record], time: time))
        case .error(let text):
            name = "capture.error"
            rule = .captureError
            emit(ReportFinding(rule: .captureError, message: text, connection: connection, records: [record], time: time))
        case .lost(let text):
            name = "capture.gap"
            rule = .captureGap
            emit(ReportFinding(rule: .captureGap, message: text, connection: connection, records: [record], time: time))
        case .crossing(_, let reason):
            name = "capture.crossing"
            detail = reason.isEmpty ? nil : clip(reason)
        case .other(let kind):
            name = "capture." + clip(kind)
        }
        guard let connection, step else { return }
        let cap = configuration.limits.maxStepsPerConnection
        withConnection(connection, time: time) { _, c in
            c.lastTime = Swift.max(c.lastTime, time)
            let step = JourneyStep(kind: .capture, action: name, correlationId: nil, direction: .webToHost, start: time,
                                   detail: detail, records: [record], findings: rule.map { [$0] } ?? [])
            _ = c.addStep(step, cap: cap)
        }
    }
}
