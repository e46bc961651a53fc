import BridgeArchive
import BridgeProtocol

/// Read on ``ArchivePipeline``'s thread; the scans are plain data, handed over as they are.
extension ArchiveEventSource.Scanning: ArchivePipelineSource {}

extension ArchiveEventSource {
    /// ``feedAll(to:)`` on two threads (``ArchivePipeline``): a new one reads the archive
    /// and scans each message (stateless per message: ``Scanning``), the caller's runs
    /// the analysis (ordered and stateful). The analyzer gets exactly what it gets on one
    /// thread, in the same order. False when no thread could be made (nothing was read).
    mutating func feedPipelined(to analyzer: inout SessionAnalyzer) -> Bool {
        var lastTime = mapper.lastTime
        let ran = ArchivePipeline.run(Scanning(analyzer, reader: reader)) { chunk in
            switch chunk {
            case .plain(let run, let lines, let scans):
                Self.feed(run: run, lines: lines, scans: scans, to: &analyzer, lastTime: &lastTime)
            case .readings(let readings):
                for r in readings { feed(r, to: &analyzer, lastTime: &lastTime) }
            }
        }
        mapper.lastTime = lastTime
        return ran
    }
}
