import BridgeJSON
import BridgeProtocol

extension SessionAnalyzer {
    /// Actions remembered per connection for `response-not-consumed` and
    /// `retry-after-fatal`; past it the memory is cleared (hostile inputs only).
    static let maxRememberedActions = 1_000

    /// Below this an envelope timestamp looks like seconds (BRG016), as in the decoder.
    static let secondsThreshold: Int64 = 100_000_000_000

    /// Document types with one side: their `front` capture is the whole document, so
    /// they never make a journey "two-picture" (`dual-capture-incomplete`).
    static let singleSidedDocumentTypes: Set<String> = ["passport"]

    /// Whether a pending request of this action counts as "a capture".
    static func isCapture(_ action: String) -> Bool {
        action.hasSuffix(".capture") || action == Action.nfcRead.rawValue
    }

    /// `scanned`: the scanner's answer for these bytes, when the caller has it already.
    mutating func message(time: Int64, direction: Direction, connection: String, bytes: ArraySlice<UInt8>, record: Int,
                          scanned: ScannedEnvelope? = nil) {
        if let s = scanned ?? (usesEnvelopeScanner ? bytes.withUnsafeBytes({ scanner.scan($0, direction: direction) }) : nil) {
            // The plain case: the decoder would find nothing; read only what the rules use.
            bytes.withUnsafeBytes { b in
                scannedMessage(s, b, time: time, direction: direction, way: MessageWay(direction), record: record,
                               slot: slot(connection, time: time))
            }
        } else {
            // A `let`: the closure of ``connectionMessage(_:slot:)`` then captures it by
            // value, and passes it on without a copy.
            let facts = decodeInFull(time: time, direction: direction, connection: connection, bytes: bytes, record: record)
            connectionMessage(facts, slot: slot(connection, time: time))
        }
    }

    /// The session rules for the scanned message `b` of the connection at `slot`; the
    /// facts point into `b`, valid for the call. `way` is `direction`'s.
    mutating func scannedMessage(_ s: ScannedEnvelope, _ b: UnsafeRawBufferPointer, time: Int64, direction: Direction,
                                 way: MessageWay, record: Int, slot: Int) {
        var facts = MessageFacts(kind: MessageKind(knownIndex: s.knownTypeIndex, in: messageKinds), way: way,
                                 rawID: UnsafeRawBufferPointer(rebasing: b[s.correlationId]),
                                 idLimit: configuration.limits.maxIdentifierBytes, action: clip(scanner.action(of: s, in: b)),
                                 actionKind: ActionKind(knownIndex: s.knownActionIndex, in: actionKinds),
                                 statusNumber: s.knownStatusNumber,
                                 errorCodeNumber: s.knownErrorCodeNumber, errorRecoverable: s.errorRecoverable,
                                 rawData: s.data.map { UnsafeRawBufferPointer(rebasing: b[$0]) },
                                 timestamp: s.timestamp, time: time, record: record)
        if facts.way == .other { facts.set(otherDirection: direction) }
        connectionMessage(facts, slot: slot)
    }

    /// The session rules for a message of the connection at `slot`.
    mutating func connectionMessage(_ facts: MessageFacts, slot: Int) {
        let time = facts.time, way = facts.way
        withConnection(at: slot) { a, c in
            c.lastTime = Swift.max(c.lastTime, time)
            if way == .webToHost { c.webMessages += 1 } else if way == .hostToWeb { c.hostMessages += 1 }
            a.checkTimestamp(&c, facts)
            // An event is read with or without an id; a request or response needs one (and
            // makes its `String` once here).
            switch facts.kind {
            case .request where way == .webToHost: if let id = facts.id { a.request(&c, id: id, facts) }
            case .response where way == .hostToWeb:
                // By the id's bytes when the scanner read them: no `String` made.
                if let raw = facts.unclippedRawID {
                    a.response(&c, found: c.ids.lookup(raw: raw), facts)
                } else if let id = facts.id {
                    a.response(&c, found: c.ids.lookup(id), facts)
                }
            case .event: a.event(&c, facts)
            default: break  // wrong direction or unknown type: the decoder reported it
            }
        }
    }

    /// The message through ``EnvelopeDecoder``: every finding, and what could be read.
    mutating func decodeInFull(time: Int64, direction: Direction, connection: String, bytes: ArraySlice<UInt8>,
                               record: Int) -> MessageFacts {
        let result = bytes.withUnsafeBytes { decoder.decode($0, direction: direction) }
        let env = result.envelope
        let type = env?.type ?? result.partial.type
        let decoded = DecodedFacts()
        decoded.id = (env?.correlationId ?? result.partial.correlationId).map(clip)
        decoded.data = env?.payload.data
        let action = env?.payload.action.rawValue ?? result.partial.action
        var facts = MessageFacts(kind: MessageKind(type), way: MessageWay(direction),
                                 action: action.map(clip),
                                 errorRecoverable: env?.payload.error?.recoverable,
                                 timestamp: env?.timestamp ?? result.partial.timestamp,
                                 time: time, record: record, decoded: decoded)
        facts.set(status: env?.payload.status ?? result.partial.status, errorCode: env?.payload.error?.code, direction: direction)
        if facts.id?.isEmpty == true { facts.id = nil }
        // The kind of the action as sent, not as clipped (as the scanner's fast path has
        // it): under a short `maxIdentifierBytes`, `host.ready` clipped to `host.rea…` was
        // no host.ready here.
        if let action { facts.actionKind = ActionKind(action) }
        if env == nil { summary.undecodable += 1 }
        for f in result.findings {
            var rf = ReportFinding(rule: f.rule, message: f.message, connection: connection, records: [record],
                                   correlationId: facts.id, offset: f.offset, time: time)
            rf.severity = f.severity
            emit(rf)
        }
        return facts
    }

    mutating func checkTimestamp(_ c: inout ConnectionState, _ m: MessageFacts) {
        // Seconds-looking values are `timestamp-in-seconds` already; they do not count here.
        guard let ts = m.timestamp, ts >= Self.secondsThreshold else { return }
        // Read and replaced in place: through the subscript and a `defer`, the whole
        // connection state (640 bytes) was copied per message.
        let previous: Int64?
        switch m.way {
        case .webToHost:
            previous = c.lastWebTimestamp
            c.lastWebTimestamp = ts
        case .hostToWeb:
            previous = c.lastHostTimestamp
            c.lastHostTimestamp = ts
        case .other:
            previous = c.lastOtherTimestamp.updateValue(ts, forKey: m.direction)
        }
        guard let previous, previous - ts > configuration.timestampToleranceMilliseconds else { return }
        let side = m.direction == .webToHost ? "web" : "host"
        emit(ReportFinding(rule: .timestampRegression,
                           message: "\(side) timestamp went back \(previous - ts) ms (from \(previous) to \(ts)); tolerance \(configuration.timestampToleranceMilliseconds) ms",
                           connection: c.id, records: [m.record], correlationId: m.id, time: m.time))
    }

    mutating func request(_ c: inout ConnectionState, id: String, _ m: MessageFacts) {
        let action = m.action ?? "?"
        c.requests += 1
        if c.streams, !c.heldBack.isEmpty { c.releaseHeldBack() }
        c.lastRequest = (m.record, id, action)
        if c.firstRequest == nil {
            c.firstRequest = (m.record, id, action)
            if c.hostReadyCount == 0 { c.requestBeforeReady = (m.record, id, m.time) }
        }
        // One probe: open, answered or new (``RequestIDs``).
        let found = c.ids.lookup(id)
        var unchanged = true
        switch found.place {
        case .open(let slot):
            let earlier = c.ids.slots[slot]!
            emit(ReportFinding(rule: .reusedCorrelationId,
                               message: "\(action) reuses id \(id) of the \(earlier.action) request still open since record \(earlier.record)",
                               connection: c.id, records: [m.record, earlier.record], correlationId: id, time: m.time))
            c.mark(earlier.stepIndex, .reusedCorrelationId)
            return
        case .answered:
            let previous = c.ids.answeredAction(found) ?? "?"
            emit(ReportFinding(rule: .reusedCorrelationId,
                               message: "\(action) reuses id \(id) of an earlier, answered \(previous) request",
                               connection: c.id, records: [m.record], correlationId: id, time: m.time))
            c.ids.forgetAnswered(found)
            unchanged = false
        case .absent:
            break
        }
        var stepRules: [RuleID] = []
        func flag(_ rule: RuleID, _ message: String, _ records: [Int] = []) {
            emit(ReportFinding(rule: rule, message: message, connection: c.id, records: [m.record] + records,
                               correlationId: id, time: m.time))
            stepRules.append(rule)
        }
        if m.actionKind == .capabilityQuery {
            c.querySent = true
        } else if !c.querySent, !c.reportedCaptureBeforeQuery {
            c.reportedCaptureBeforeQuery = true
            flag(.captureBeforeQuery, "\(action) (\(id)) was requested before any capability.query")
        }
        if let (capID, info) = c.capability(for: action, kind: m.actionKind) {
            if info.supported == false {
                flag(.unsupportedCapabilityRequested, "\(action) (\(id)) requested, but the latest capability.query reported \(capID) supported: false")
            }
            if let p = info.permissionState, p == "denied" || p == "restricted" {
                flag(.captureDespiteDeniedPermission, "\(action) (\(id)) requested, but the latest capability.query reported \(capID) permissionState \"\(p)\"")
            }
        }
        if !c.lastFatal.isEmpty, let fatal = c.lastFatal.removeValue(for: action, kind: m.actionKind) {
            flag(.retryAfterFatal, "\(action) (\(id)) repeats \(fatal.id), which was answered with recoverable: false at record \(fatal.record)", [fatal.record])
        }
        let dataKey = RequestData(rawData: m.rawData, decodedData: m.decodedData)
        if let s = c.lastSuccess.removeValue(for: action, kind: m.actionKind), m.time - s.sent >= Self.nanoseconds(milliseconds: timeoutMilliseconds(action, m.actionKind)),
           s.dataKey.same(as: dataKey) {
            flag(.responseNotConsumed,
                 "\(action) (\(id)) re-sent with the same data \(Self.millis(m.time - s.sent)) after \(s.id), which the host answered with success (record \(s.record)): the web never saw that answer",
                 [s.record])
        }
        var busyWith: String?
        if m.actionKind.isTypedSlot {
            if let active = c.activeSlot[action, m.actionKind], c.ids.isOpen(active) { busyWith = active } else { c.activeSlot[action, m.actionKind] = id }
        }
        var side: String?, sides: CaptureSides = []
        if m.actionKind == .documentCapture, let s = m.dataString("side") {
            side = s
            sides = CaptureSides(side: s)
            // The document type only matters for a side the rule reads and not yet requested.
            if !c.requestedSides.isSuperset(of: sides) {
                let type = m.dataString("documentType")?.lowercased() ?? ""
                if !Self.singleSidedDocumentTypes.contains(type) { c.requestedSides.formUnion(sides) }
            }
        }
        guard c.ids.openCount < configuration.limits.maxOpenRequestsPerConnection else {
            logger.debug("open-request cap reached; \(id) not tracked", metadata: ["connection": "\(c.id)"])
            if c.streams {
                // Streamed, the request still has its step, closed at once and marked
                // truncated: it is not paired, and nothing of it is kept.
                var step = JourneyStep(kind: .request, action: action, correlationId: id, direction: m.direction, start: m.time,
                                       end: m.time, outcome: "untracked", detail: side.map { "side \($0)" }, records: [m.record],
                                       findings: stepRules)
                step.truncated = JourneyStep.openRequestLimit
                c.closeStep(c.holdStep(step))
            }
            return
        }
        if c.lastSuccess.count > Self.maxRememberedActions { c.lastSuccess.removeAll() }
        if c.lastFatal.count > Self.maxRememberedActions { c.lastFatal.removeAll() }
        let index = c.addStep(JourneyStep(kind: .request, action: action, correlationId: id, direction: m.direction, start: m.time,
                                          detail: side.map { "side \($0)" }, records: [m.record], findings: stepRules),
                              cap: configuration.limits.maxStepsPerConnection)
        c.ids.open(OpenRequest(id: id, action: action, kind: m.actionKind, sent: m.time, record: m.record, stepIndex: index,
                               busyWith: busyWith, dataKey: dataKey, sides: sides),
                   at: found, unchanged: unchanged)
        if c.ids.openCount > configuration.maxPendingRequests {
            if !c.overPendingLimit {
                c.overPendingLimit = true
                emit(ReportFinding(rule: .tooManyPending,
                                   message: "\(c.ids.openCount) requests open at once (limit \(configuration.maxPendingRequests))",
                                   connection: c.id, records: [m.record], correlationId: id, time: m.time))
                c.mark(index, .tooManyPending)
            }
        } else {
            c.overPendingLimit = false
        }
    }

    /// The capability id a request uses: the action itself when the query lists it,
    /// else `<id>` for a `<id>.capture` action.
    static func capabilityID(for action: String, kind: ActionKind, in caps: [String: CapabilityInfo]) -> String? {
        if kind == .capabilityQuery { return nil }
        if caps[action] != nil { return action }
        if action.hasSuffix(".capture") {
            let id = String(action.dropLast(".capture".count))
            if caps[id] != nil { return id }
        }
        return nil
    }

    /// A stable text for a data object (sorted keys), to compare two requests' data.
    static func canonical(_ data: JSONObject) -> String {
        JSONWriter(sortedKeys: true).string(.object(data))
    }

    /// `1234 ms` or `12.3 s`.
    static func millis(_ nanos: Int64) -> String {
        let ms = nanos / 1_000_000
        if ms < 10_000 { return "\(ms) ms" }
        return "\(ms / 1000).\((ms % 1000) / 100) s"
    }
}
