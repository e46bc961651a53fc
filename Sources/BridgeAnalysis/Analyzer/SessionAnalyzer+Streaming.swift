import Logging

/// The streaming analysis (``JourneySink``): after each record the findings it made are
/// filed with the step they go on, then the steps it settled are handed over.
extension SessionAnalyzer {
    /// Analyses every record of `source`, handing the journeys to `sink` as they settle
    /// (the report's streamed connections have no steps); returns the report.
    package static func analyze<Source: AnalysisEventSource>(
        _ source: inout Source, name: String, configuration: AnalyzerConfiguration, sink: any JourneySink,
        logger: Logger = Logger(label: "bridgescope.analysis")
    ) throws(AnalysisError) -> AnalysisReport {
        var analyzer = SessionAnalyzer(source: name, configuration: configuration, logger: logger)
        analyzer.sink = sink
        try source.feedAll(to: &analyzer)
        return analyzer.finish()
    }

    /// Files the new findings, then hands over what the last record settled.
    mutating func handOver() {
        if !unfiled.isEmpty { fileFindings() }
        guard let sink else { return }
        while let slot = dirty.popLast() {
            connections[slot].deliverSettled(to: sink, slot: slot)
        }
    }

    /// Files each new stored finding with its journey, as ``JourneySink`` says: the
    /// connection it names, else the session's first (later, if none exists yet).
    mutating func fileFindings() {
        for (order, f) in unfiled {
            if let slot = f.connection.flatMap({ connectionIndex[$0] }) ?? (connections.isEmpty ? nil : 0) {
                connections[slot].attach(f, order: order)
            } else {
                orphans.append((order, f))
            }
        }
        unfiled.removeAll(keepingCapacity: true)
    }

    /// At the end (the open requests closed as unanswered, the crossings judged): every
    /// finding filed, every held step handed over.
    mutating func settleEverything() {
        fileFindings()
        if !connections.isEmpty {
            for (order, f) in orphans { connections[0].attach(f, order: order) }
            orphans = []
        }
        dirty = []
        guard let sink else { return }
        for slot in connections.indices where connections[slot].streams {
            connections[slot].settleAll()
            connections[slot].deliverSettled(to: sink, slot: slot)
        }
    }
}
