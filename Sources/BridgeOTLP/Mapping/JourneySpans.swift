import BridgeAnalysis

/// One journey's spans, encoded one at a time as the exporter asks for them, so that
/// memory is a batch plus what the analysis keeps, not the journey's spans
/// (docs/OTLP.md, "Mapping"): each request span is written when its step is reached;
/// the root span's events (the journey's events and capture events, then the findings
/// that name no request) are gathered, already encoded, and the root span is written
/// once it has ``maxEvents`` of them or the steps are done. A root with more events than
/// that continues in `journey.events` spans, children of the root, ``maxEvents`` events
/// each: nothing is dropped, and one span (hence one request) stays bounded.
///
/// A value-type state machine: ``next(into:)`` writes the next span and returns true,
/// or returns false when the journey is done. Pure: no I/O.
struct JourneySpans {
    let connection: ConnectionReport
    let trace: [UInt8]
    let traceHex: String
    let rootID: [UInt8]
    /// Events per span, the root's included (at least 1).
    let maxEvents: Int
    /// Events of the root in all: non-request steps plus findings on the root.
    let rootEventCount: Int
    /// Spans the root's events take (the root and its continuations).
    var eventSpans: Int { Swift.max(1, (rootEventCount + maxEvents - 1) / maxEvents) }

    /// Findings by the index of the request step they go on (the first of their records
    /// that is a record of one of this journey's requests).
    let requestFindings: [Int: [ReportFinding]]
    /// Findings on the root, in report order.
    let rootFindings: [ReportFinding]

    private var step = 0
    private var finding = 0
    var done = false
    /// Root events gathered and not yet written: encoded `Span.events` fields.
    private(set) var pending = ProtobufWriter()
    private(set) var pendingCount = 0
    private(set) var pendingTimes: (first: Int64, last: Int64) = (.max, .min)
    /// Root spans written so far (1 = the root itself).
    private(set) var part = 0
    /// The most root events held at once (for tests of the bound).
    private(set) var mostPending = 0

    /// A journey to be streamed (JourneySpans+Streaming.swift): `c` is its report without
    /// steps, `rootEventCount` its root's events in all (known from a first pass).
    init(streaming c: ConnectionReport, identity: String, rootEventCount: Int, maxEvents: Int) {
        connection = c
        trace = TraceIdentity.traceID(session: identity, connection: c.id)
        traceHex = TraceIdentity.hex(trace)
        rootID = TraceIdentity.rootSpanID(trace: trace)
        self.maxEvents = Swift.max(1, maxEvents)
        self.rootEventCount = rootEventCount
        requestFindings = [:]
        rootFindings = []
        step = c.steps.count
        finding = 0
    }

    init(connection c: ConnectionReport, identity: String, findings: [ReportFinding], maxEvents: Int) {
        connection = c
        trace = TraceIdentity.traceID(session: identity, connection: c.id)
        traceHex = TraceIdentity.hex(trace)
        rootID = TraceIdentity.rootSpanID(trace: trace)
        self.maxEvents = Swift.max(1, maxEvents)
        // By index, not `for step in`: a step is a large struct, and copying each one
        // (retaining its strings and arrays) was a third of the export's own time.
        let steps = c.steps
        var target: [Int: Int] = [:], events = 0
        for i in steps.indices {
            if steps[i].kind != .request {
                events += 1
            } else if !findings.isEmpty {
                for r in steps[i].records { target[r] = i }
            }
        }
        var byStep: [Int: [ReportFinding]] = [:], root: [ReportFinding] = []
        for f in findings {
            if let i = f.records.lazy.compactMap({ target[$0] }).first {
                byStep[i, default: []].append(f)
            } else {
                root.append(f)
            }
        }
        requestFindings = byStep
        rootFindings = root
        rootEventCount = events + root.count
    }

    /// Writes the next span into `out` (as `ScopeSpans.spans`, field 2); false when the
    /// journey has no more.
    mutating func next(into out: inout ProtobufWriter) -> Bool {
        let steps = connection.steps
        while step < steps.count {
            let i = step
            step += 1
            if steps[i].kind == .request {
                writeRequest(steps[i], findings: requestFindings[i] ?? [], into: &out)
                return true
            }
            gather(steps[i])
            if pendingCount == maxEvents {
                writeRoot(into: &out)
                return true
            }
        }
        while finding < rootFindings.count {
            gather(rootFindings[finding])
            finding += 1
            if pendingCount == maxEvents {
                writeRoot(into: &out)
                return true
            }
        }
        guard !done else { return false }
        done = true
        guard part == 0 || pendingCount > 0 else { return false }
        writeRoot(into: &out)
        return true
    }

    mutating func gather(_ step: JourneyStep) {
        Self.writeEvent(step, into: &pending)
        count(step.start)
    }

    mutating func gather(_ f: ReportFinding) {
        let time = f.time ?? connection.lastTime
        Self.writeFinding(f, time: time, into: &pending)
        count(time)
    }

    private mutating func count(_ time: Int64) {
        pendingCount += 1
        mostPending = Swift.max(mostPending, pendingCount)
        pendingTimes = (Swift.min(pendingTimes.first, time), Swift.max(pendingTimes.last, time))
    }

    /// Writes the root span (part 1) or a continuation, with the gathered events.
    mutating func writeRoot(into out: inout ProtobufWriter) {
        part += 1
        if part == 1 {
            writeRootSpan(into: &out)
        } else {
            writeContinuation(into: &out)
        }
        pending.bytes.removeAll(keepingCapacity: true)
        pendingCount = 0
        pendingTimes = (.max, .min)
    }
}
