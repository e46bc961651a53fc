import BridgeJSON
import BridgeProtocol

/// The crossing analysis of two-sided recordings (docs/ANALYZER.md): each message one side
/// of the bridge sent is paired with the other side's record of it (``CrossingPair``) and
/// the two are compared (``CrossingComparison``); what never crossed is judged at the end.
///
/// Rules: `bridge-member-changed` as soon as a pair differs (or its tap noted changes);
/// `bridge-not-delivered`, `bridge-unposted-receipt` and `bridge-crossing-incomplete` at
/// ``finish()``. A connection with only an `@web` side gives nothing; one with only an
/// `@native` side gives one `bridge-crossing-incomplete` (it is not analysed at all).
/// Memory: the waiting messages, capped by ``CrossingLimits``.
struct CrossingTracker: Sendable {
    let limits: CrossingLimits
    /// The analyzer's identifier limit: connection ids and key parts are cut to it.
    let identifierBytes: Int
    private var pairs: [CrossingPair] = []
    private var index: [String: Int] = [:]
    /// Bytes of every waiting message of the session.
    private var waitingBytes = 0
    /// The first two-sided connection past ``CrossingLimits/maxConnections``, and its
    /// first record.
    private var untracked: (connection: String, record: Int)?
    private let parser = JSONParser()

    init(limits: CrossingLimits, identifierBytes: Int) {
        self.limits = limits
        self.identifierBytes = identifierBytes
    }

    private func clip(_ s: String) -> String { SessionAnalyzer.clip(s, to: identifierBytes) }

    /// The pair of `base` (made on first sight); nil past the connection limit.
    private mutating func pair(_ base: String, side: BridgeSide, record: Int) -> Int? {
        let base = clip(base)
        if let i = index[base] { return i }
        guard pairs.count < limits.maxConnections else {
            if untracked == nil { untracked = (base + side.suffix, record) }
            return nil
        }
        index[base] = pairs.count
        pairs.append(CrossingPair(base: base))
        return pairs.count - 1
    }

    private mutating func see(_ i: Int, _ side: BridgeSide, _ record: Int) {
        pairs[i][side].seen = true
        if pairs[i][side].first == nil { pairs[i][side].first = record }
    }

    private func parse(_ bytes: UnsafeRawBufferPointer) -> JSONValue? {
        try? parser.parse(bytes).value
    }

    /// A message recorded on one side; returns a `bridge-member-changed` finding when it
    /// pairs with its twin and the two differ.
    mutating func message(base: String, side: BridgeSide, direction: Direction, record: Int, time: Int64,
                          bytes: ArraySlice<UInt8>) -> ReportFinding? {
        guard let i = pair(base, side: side, record: record) else { return nil }
        see(i, side, record)
        pairs[i][side].messages += 1
        guard let sender = BridgeSide.sender(of: direction), pairs[i].stopped == nil else { return nil }
        let webToHost = sender == .web
        if !webToHost {
            if side == .native {
                pairs[i].nativeSends += 1
            } else if pairs[i].nativeSends == 0 {
                pairs[i].receiptsBeforeAnySend += 1
                if pairs[i].receiptsBeforeAnySend > CrossingPair.receiptsBeforeGivingUp { pairs[i].sendsUnjudged = true }
                if pairs[i].sendsUnjudged { return nil }
            }
        }
        let note = pairs[i].takeNote(side, webToHost: webToHost)
        let value = bytes.withUnsafeBytes { parse($0) }
        var message = CrossingMessage(key: CrossingKey(value, clip: clip), record: record, time: time, bytes: [], note: note)
        if let twin = pairs[i].twin(of: message, on: side, webToHost: webToHost) {
            waitingBytes -= twin.bytes.count
            let twinValue = twin.bytes.withUnsafeBytes { parse($0) }
            message.bytes = Array(bytes)
            let (web, native) = side == .web ? ((message, value), (twin, twinValue)) : ((twin, twinValue), (message, value))
            return changed(pairs[i], web: web, native: native, webToHost: webToHost)
        }
        // Kept, within the limits; past one the connection's comparison stops.
        let pairBytes = pairs[i].waitingBytes + bytes.count
        let why: String?
        if pairs[i].waiting >= limits.maxWaitingPerConnection {
            why = "more than \(limits.maxWaitingPerConnection) messages waited for their twin from the other side"
        } else if pairBytes > limits.maxWaitingBytesPerConnection {
            why = "the messages waiting for their twin from the other side came to more than \(limits.maxWaitingBytesPerConnection) bytes"
        } else if waitingBytes + bytes.count > limits.maxWaitingBytes {
            why = "the session's messages waiting for their twin came to more than \(limits.maxWaitingBytes) bytes"
        } else {
            why = nil
        }
        if let why {
            waitingBytes -= pairs[i].waitingBytes
            pairs[i].stop(at: record, why: why)
            return nil
        }
        message.bytes = Array(bytes)
        waitingBytes += bytes.count
        pairs[i].keep(message, webToHost: webToHost, sender: side == sender)
        return nil
    }

    /// A capture event on one side: it was recorded; a `crossing` event is the note for
    /// the side's next record of its direction; a gap, drop or error is remembered as
    /// lost data (named by the findings it may explain).
    mutating func event(base: String, side: BridgeSide, kind: CaptureEventKind, record: Int) {
        guard let i = pair(base, side: side, record: record) else { return }
        see(i, side, record)
        switch kind {
        case .crossing(let direction, let reason):
            guard let direction, let sender = BridgeSide.sender(of: direction) else { return }
            pairs[i].setNote(CrossingNote(reason: reason, record: record), side, webToHost: sender == .web)
        case .gap, .drop, .error, .lost:
            if pairs[i][side].loss == nil { pairs[i][side].loss = record }
        case .open, .close, .other:
            break
        }
    }

    /// The `bridge-member-changed` finding of a pair, when the tap noted changes or the
    /// two records differ.
    private func changed(_ pair: CrossingPair, web: (CrossingMessage, JSONValue?), native: (CrossingMessage, JSONValue?),
                         webToHost: Bool) -> ReportFinding? {
        let note = webToHost ? web.0.note : native.0.note
        var parts: [String] = []
        // A `not delivered` note says why it would not arrive; it did, so only the
        // comparison speaks.
        if let note, note.delivered, !note.changes.isEmpty {
            parts.append("\(note.changes) (noted by the \(webToHost ? "page's" : "host's") tap at record \(note.record))")
        }
        let comparison = CrossingComparison(webBytes: web.0.bytes, nativeBytes: native.0.bytes, webValue: web.1, nativeValue: native.1)
        parts += comparison.listed
        if comparison.total > comparison.listed.count {
            parts.append("and \(comparison.total - comparison.listed.count) more differences")
        }
        guard !parts.isEmpty else { return nil }
        let way = webToHost ? "from the page to the host" : "from the host to the page"
        let what = web.0.key.describe(at: "records \(web.0.record) and \(native.0.record)")
        return ReportFinding(rule: .bridgeMemberChanged, message: "\(what) changed crossing \(way): " + parts.joined(separator: "; "),
                             connection: pair.base + "@web", records: [web.0.record, native.0.record],
                             correlationId: web.0.key.correlationId, time: web.0.time)
    }

    /// Judges what never crossed, connection by connection in order of first sight.
    mutating func finish() -> [ReportFinding] {
        var out: [ReportFinding] = []
        for p in pairs {
            out += judge(p)
        }
        if let u = untracked {
            out.append(ReportFinding(rule: .bridgeCrossingIncomplete,
                                     message: "more than \(limits.maxConnections) two-sided connections: \(u.connection) and those after it were not compared across the bridge",
                                     connection: u.connection, records: [u.record]))
        }
        pairs = []
        index = [:]
        waitingBytes = 0
        return out
    }

    private func judge(_ p: CrossingPair) -> [ReportFinding] {
        let web = p.base + "@web", native = p.base + "@native"
        if !p.isTwoSided {
            guard p.native.seen else { return [] }
            return [ReportFinding(rule: .bridgeCrossingIncomplete,
                                  message: "\(native) has no \(web) twin in this recording: its \(Format.plural(p.native.messages, "message")) were not analysed (the per-connection rules read the @web side, and there is nothing to compare them with)",
                                  connection: native, records: p.native.first.map { [$0] } ?? [])]
        }
        if let stop = p.stopped {
            return [ReportFinding(rule: .bridgeCrossingIncomplete,
                                  message: "the comparison of \(web) with \(native) stopped at record \(stop.record): \(stop.why); from there on nothing of it was paired, and nothing left waiting is reported as not delivered",
                                  connection: web, records: [stop.record])]
        }
        var out: [ReportFinding] = []
        for (q, queues) in p.queues {
            // A native tap that sees no host sends: host → page is not compared.
            if !q.webToHost && (p.nativeSends == 0 || p.sendsUnjudged) { continue }
            var received = queues.received, undelivered = queues.undelivered
            // A receipt with no other post to be its twin: the tap expected WebKit not to
            // deliver this one, and it did.
            while !received.isEmpty, !undelivered.isEmpty {
                let post = undelivered.removeFirst(), receipt = received.removeFirst()
                let (w, n) = q.webToHost ? (post, receipt) : (receipt, post)
                let found = changed(p, web: (w, w.bytes.withUnsafeBytes { parse($0) }), native: (n, n.bytes.withUnsafeBytes { parse($0) }),
                                    webToHost: q.webToHost)
                if let found { out.append(found) }
            }
            for m in queues.sent + undelivered { out.append(notDelivered(m, p, webToHost: q.webToHost)) }
            for m in received { out.append(unposted(m, p, webToHost: q.webToHost)) }
        }
        return out.sorted { ($0.records.first ?? 0) < ($1.records.first ?? 0) }
    }

    private func lost(_ p: CrossingPair, _ side: BridgeSide, holding what: String) -> String {
        guard let loss = p[side].loss else { return "" }
        return "; the recording of \(p.base + side.suffix) lost data at record \(loss), which may hold the \(what)"
    }

    private func notDelivered(_ m: CrossingMessage, _ p: CrossingPair, webToHost: Bool) -> ReportFinding {
        var text: String
        if webToHost {
            text = "the page posted \(m.key.describe(at: "record \(m.record)")) and the host never received it"
        } else {
            text = "the host sent \(m.key.describe(at: "record \(m.record) on \(p.base)@native")) and the page never received it"
        }
        if let note = m.note {
            if !note.delivered {
                text += ": WebKit does not deliver it" + (note.changes.isEmpty ? "" : " (\(note.changes))")
            } else if !note.changes.isEmpty {
                text += " (its tap noted changes: \(note.changes))"
            }
        }
        text += lost(p, webToHost ? .native : .web, holding: "receipt")
        return ReportFinding(rule: .bridgeNotDelivered, message: text, connection: p.base + (webToHost ? "@web" : "@native"),
                             records: [m.record], correlationId: m.key.correlationId, time: m.time)
    }

    private func unposted(_ m: CrossingMessage, _ p: CrossingPair, webToHost: Bool) -> ReportFinding {
        var text: String
        if webToHost {
            text = "the host received \(m.key.describe(at: "record \(m.record) on \(p.base)@native")) that the page never posted on \(p.base)@web"
        } else {
            text = "the page received \(m.key.describe(at: "record \(m.record)")) that the host never sent on \(p.base)@native"
        }
        text += lost(p, webToHost ? .web : .native, holding: webToHost ? "post" : "message sent")
        return ReportFinding(rule: .bridgeUnpostedReceipt, message: text, connection: p.base + (webToHost ? "@native" : "@web"),
                             records: [m.record], correlationId: m.key.correlationId, time: m.time)
    }
}
