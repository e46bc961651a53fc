import BridgeProtocol

extension SessionAnalyzer {
    /// A message on a two-sided recording's side (`<id>@web` or `<id>@native`), for the
    /// crossing analysis (``CrossingTracker``); `@web` messages are analysed as their
    /// connection's as well, by the caller.
    mutating func crossingMessage(_ sided: (base: String, side: BridgeSide), time: Int64, direction: Direction,
                                  bytes: ArraySlice<UInt8>, record: Int) {
        if let found = crossings.message(base: sided.base, side: sided.side, direction: direction, record: record,
                                         time: time, bytes: bytes) {
            emitCrossing(found)
        }
    }

    /// A capture event on a two-sided recording's side.
    mutating func crossingEvent(_ sided: (base: String, side: BridgeSide), kind: CaptureEventKind, record: Int) {
        crossings.event(base: sided.base, side: sided.side, kind: kind, record: record)
    }

    /// The crossing analysis's end-of-session findings (``CrossingTracker/finish()``).
    mutating func finishCrossings() {
        for f in crossings.finish() { emitCrossing(f) }
    }

    /// Emits a crossing finding and marks it on the `@web` journey step that holds its
    /// first record (a request, its responses, or an event), when there is one.
    private mutating func emitCrossing(_ finding: ReportFinding) {
        emit(finding)
        guard let connection = finding.connection, let record = finding.records.first,
              BridgeSide.split(connection)?.side == .web, let slot = connectionIndex[clip(connection)] else { return }
        withConnection(at: slot) { _, c in
            // The newest steps first: a finding made as its pair crosses is about a recent one.
            if let i = c.steps.lastIndex(where: { $0.records.contains(record) }) { c.mark(i, finding.rule) }
        }
    }
}
