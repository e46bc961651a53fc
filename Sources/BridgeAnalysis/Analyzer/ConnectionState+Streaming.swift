/// A connection's steps when the analysis streams (``JourneySink``): a step lives in
/// ``ConnectionState/held`` from its making until it is settled, then leaves the
/// analyzer. Memory is the open requests plus at most two closed ones (the
/// connection's first request, which `missing-host-ready` and `host-silent` may name at
/// the end, and its latest, which `journey-incomplete` names), whatever the length of
/// the session.
extension ConnectionState {
    /// Step `i` (absolute index, as ``OpenRequest/stepIndex``), kept or held.
    subscript(step i: Int) -> JourneyStep {
        get { streams ? held[i]! : steps[i] }
        _modify {
            if streams {
                yield &held[i]!
            } else {
                yield &steps[i]
            }
        }
    }

    /// Whether step `i` is still here to change.
    func hasStep(_ i: Int) -> Bool {
        streams ? held[i] != nil : i < steps.count
    }

    /// A streamed step: held (a request, until settled) or settled at once (an event).
    mutating func holdStep(_ step: JourneyStep) -> Int {
        let i = madeSteps
        madeSteps += 1
        if step.kind == .request {
            for r in step.records { owner[r] = i }
        } else {
            settled.append(i)
        }
        held[i] = step
        return i
    }

    /// Adds response record `record` to request step `i`.
    mutating func addRecord(_ record: Int, to i: Int) {
        self[step: i].records.append(record)
        if streams { owner[record] = i }
    }

    /// Request step `i` got its final answer: settled, unless it is the connection's
    /// first or latest request, which end-of-session findings may still name.
    mutating func closeStep(_ i: Int) {
        guard streams, let first = held[i]?.records.first else { return }
        if first == firstRequest?.record || first == lastRequest?.record {
            heldBack.append(i)
        } else {
            settled.append(i)
        }
    }

    /// A new request is about to become the latest: a closed step held back only as the
    /// latest is settled (the first request stays to the end).
    mutating func releaseHeldBack() {
        let first = firstRequest?.record
        heldBack.removeAll { i in
            guard held[i]?.records.first != first else { return false }
            settled.append(i)
            return true
        }
    }

    /// The kept or held request step whose request is record `record`.
    func requestStep(record: Int) -> JourneyStep? {
        if streams { return owner[record].flatMap { held[$0] }.flatMap { $0.kind == .request && $0.records.first == record ? $0 : nil } }
        return steps.last { $0.kind == .request && $0.records.first == record }
    }

    /// Files stored finding `f` (number `order` in emission order) with the step it goes
    /// on: the held request owning the first of its records that any does, else the root.
    mutating func attach(_ f: ReportFinding, order: Int) {
        if streams {
            for r in f.records {
                if let i = owner[r] {
                    stepFindings[i, default: []].append((order, f))
                    return
                }
            }
        }
        journeyFindings.append((order, f))
    }

    /// Findings in report order: by first record, then as emitted.
    static func reportOrder(_ findings: [(order: Int, finding: ReportFinding)]) -> [ReportFinding] {
        findings.sorted { a, b in
            let ra = a.finding.records.first ?? Int.max, rb = b.finding.records.first ?? Int.max
            return ra != rb ? ra < rb : a.order < b.order
        }.map(\.finding)
    }

    /// Hands every settled step to `sink`, in the order they were settled.
    mutating func deliverSettled(to sink: any JourneySink, slot: Int) {
        for i in settled {
            guard let step = held.removeValue(forKey: i) else { continue }
            if step.kind == .request {
                for r in step.records where owner[r] == i { owner[r] = nil }
            }
            let findings = stepFindings.removeValue(forKey: i).map(Self.reportOrder) ?? []
            sink.step(step, connection: id, slot: slot, findings: findings)
        }
        settled.removeAll(keepingCapacity: true)
    }

    /// At the end: every step still held is settled, in step order.
    mutating func settleAll() {
        settled = held.keys.sorted()
        heldBack = []
    }
}
