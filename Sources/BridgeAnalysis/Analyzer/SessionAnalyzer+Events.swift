import BridgeJSON
import BridgeProtocol

extension SessionAnalyzer {
    /// Journey statuses of `journey.complete` that mean the journey did not succeed, so
    /// a missing document side is expected (`dual-capture-incomplete` stays quiet).
    static let failedJourneyStatuses: Set<String> = ["failed", "failure", "error", "cancelled", "canceled", "abandoned"]

    mutating func event(_ c: inout ConnectionState, _ m: MessageFacts) {
        var step = (detail: String?.none, findings: [RuleID]())
        func flag(_ rule: RuleID, _ message: String, _ records: [Int] = []) {
            emit(ReportFinding(rule: rule, message: message, connection: c.id, records: [m.record] + records,
                               correlationId: m.id, time: m.time))
            step.findings.append(rule)
        }
        if m.way == .hostToWeb {
            switch m.actionKind {
            case .hostReady:
                c.hostReadyCount += 1
                if c.hostReadyCount == 1 {
                    c.firstHostReadyRecord = m.record
                } else {
                    flag(.hostReinit, "host.ready number \(c.hostReadyCount) on this connection (the first was record \(c.firstHostReadyRecord ?? 0)): the host was re-created",
                         c.firstHostReadyRecord.map { [$0] } ?? [])
                }
                if let early = c.requestBeforeReady {
                    c.requestBeforeReady = nil
                    // The finding is about the early request: its id, not host.ready's.
                    emit(ReportFinding(rule: .missingHostReady,
                                       message: "request \(early.id) (record \(early.record)) was sent \(Self.millis(m.time - early.time)) before host.ready",
                                       connection: c.id, records: [m.record, early.record], correlationId: early.id, time: m.time))
                    step.findings.append(.missingHostReady)
                }
                c.lastFatal.removeAll()
                lifecycle(&c)
            case .hostForeground:
                lifecycle(&c)
            case .hostBackground:
                lifecycle(&c)
                let pending = c.ids.openRequests.filter { Self.isCapture($0.action) }.sorted { $0.record < $1.record }
                // One finding per pending capture, about that capture: its id and its
                // record first (the request a reader must look at), the event second.
                for p in pending {
                    emit(ReportFinding(rule: .backgroundedDuringCapture,
                                       message: "\(p.action) (\(p.id), record \(p.record)) was pending when host.background arrived (record \(m.record))",
                                       connection: c.id, records: [p.record, m.record], correlationId: p.id, time: m.time))
                    c.mark(p.stepIndex, .backgroundedDuringCapture)
                }
                if !pending.isEmpty { step.findings.append(.backgroundedDuringCapture) }
            case .journeyCancel:
                step.detail = m.dataString("reason")
            default: break
            }
        } else if m.way == .webToHost {
            switch m.actionKind {
            case .journeyStarted:
                // A new journey on the same page (a WebView reused) asks again: its first
                // requests repeat the last journey's on purpose, not for lack of an answer.
                c.lastSuccess.removeAll()
            case .journeyComplete:
                let status = m.dataString("status")
                step.detail = status
                c.outcome = JourneyOutcome(state: "complete", detail: status)
                if let problem = Self.dualCaptureProblem(requested: c.requestedSides, captured: c.capturedSides, status: status) { flag(.dualCaptureIncomplete, problem, []) }
            case .journeyError:
                let message = m.dataString("message")
                step.detail = message
                c.outcome = JourneyOutcome(state: "error", detail: message)
            default: break
            }
        }
        // The action read only for a step that is kept (a retain and a release of its
        // string per event otherwise).
        _ = c.addStep(JourneyStep(kind: .event, action: m.action ?? "?", correlationId: m.id, direction: m.direction, start: m.time,
                                  detail: step.detail, records: [m.record], findings: step.findings),
                      cap: configuration.limits.maxStepsPerConnection)
    }

    /// A host lifecycle event: capability answers may change after it, and a repeated
    /// request after it is not a lost answer.
    func lifecycle(_ c: inout ConnectionState) {
        c.lifecycleSinceQuery = true
        c.lastSuccess.removeAll()
    }

    /// Seed 001: one picture (`side: single`) or two (`front`, then `back`; retakes
    /// allowed). A journey that asked for front or back must have both before it completes.
    /// Given the two sets, not the connection's state, which a call copied whole.
    static func dualCaptureProblem(requested: CaptureSides, captured: CaptureSides, status: String?) -> String? {
        let dual = !requested.isDisjoint(with: [.front, .back])
        guard dual, !captured.contains(.single) else { return nil }
        if let status, Self.failedJourneyStatuses.contains(status.lowercased()) { return nil }
        let sides: [(name: String, side: CaptureSides)] = [("front", .front), ("back", .back)]
        let missing = sides.filter { !captured.contains($0.side) }.map(\.name)
        guard !missing.isEmpty else { return nil }
        let have = sides.filter { captured.contains($0.side) }.map(\.name)
        return "two-picture document journey completed with \(have.isEmpty ? "no side" : have.joined(separator: " and ")) captured; missing \(missing.joined(separator: " and "))"
    }

    /// End-of-session checks for one connection.
    mutating func finishConnection(_ c: inout ConnectionState, end: Int64) {
        for req in c.ids.openRequests.sorted(by: { $0.record < $1.record }) {
            let ack = req.acknowledged.map { ", acknowledged after \(Self.millis($0 - req.sent))" } ?? ""
            emit(ReportFinding(rule: .unansweredRequest,
                               message: "\(req.action) (\(req.id)) got no final response\(ack); pending \(Self.millis(end - req.sent)) when the session ended",
                               connection: c.id, records: [req.record], correlationId: req.id, time: end))
            if let i = req.stepIndex {
                c[step: i].outcome = "unanswered"
                c.mark(i, .unansweredRequest)
            }
        }
        let silent = c.requests > 0 && c.hostMessages == 0
        if silent, let first = c.firstRequest {
            emit(ReportFinding(rule: .hostSilent,
                               message: "the web sent \(c.requests) request(s), starting with \(first.action) (\(first.id)), and the host sent nothing",
                               connection: c.id, records: [first.record], correlationId: first.id, time: end))
        }
        if !silent, c.hostReadyCount == 0, let early = c.requestBeforeReady {
            emit(ReportFinding(rule: .missingHostReady,
                               message: "the host never sent host.ready; the first request was \(c.firstRequest?.action ?? "?") (\(early.id))",
                               connection: c.id, records: [early.record], correlationId: early.id, time: end))
        }
        if c.webMessages > 0, c.outcome == nil {
            c.outcome = JourneyOutcome(state: "incomplete")
            // The connection's real last request, not the last of the steps kept.
            var hint = ""
            var records: [Int] = []
            if let last = c.lastRequest {
                let kept = c.requestStep(record: last.record)
                let outcome = c.ids.isOpen(last.id) ? "unanswered" : (kept?.outcome ?? "answered")
                hint = " (last request: \(last.action) \(last.id), record \(last.record), \(outcome))"
                records = [last.record]
            }
            emit(ReportFinding(rule: .journeyIncomplete,
                               message: "no journey.complete or journey.error before the session ended\(hint)",
                               connection: c.id, records: records, time: end))
        }
    }
}
