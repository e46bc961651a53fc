import BridgeAnalysis

/// A journey mapped as its steps settle (``SpanStreamer``, docs/OTLP.md, "Memory"):
/// the same spans as ``JourneySpans/next(into:)`` writes from a whole journey, fed one
/// step at a time. A request's span is written as soon as its step comes; the root's
/// events are gathered as before, and the root (part 1) or a `journey.events` span is
/// written each time ``maxEvents`` of them are in; the root findings and the last part
/// come at the end. What a span says of the whole journey (the root's counts, outcome
/// and end, `event_spans`) comes from the first pass (``JourneyPlan``).
extension JourneySpans {
    /// A settled step with its findings; true when a span was written into `out`.
    mutating func stream(_ step: JourneyStep, findings: [ReportFinding], into out: inout ProtobufWriter) -> Bool {
        if step.kind == .request {
            writeRequest(step, findings: findings, into: &out)
            return true
        }
        gather(step)
        return writeRootIfFull(into: &out)
    }

    /// A finding of the root (after the last step); true when a span was written.
    mutating func streamRootFinding(_ f: ReportFinding, into out: inout ProtobufWriter) -> Bool {
        gather(f)
        return writeRootIfFull(into: &out)
    }

    /// The end of the journey: the root's last part, unless it was just written; true
    /// when a span was written.
    mutating func streamEnd(into out: inout ProtobufWriter) -> Bool {
        guard !done else { return false }
        done = true
        guard part == 0 || pendingCount > 0 else { return false }
        writeRoot(into: &out)
        return true
    }

    private mutating func writeRootIfFull(into out: inout ProtobufWriter) -> Bool {
        guard pendingCount == maxEvents else { return false }
        writeRoot(into: &out)
        return true
    }
}
