import BridgeArchive
import BridgeProtocol

extension ArchiveEventSource.Scanning: ArchivePipelineSource {
    /// Reads the next reading of the lent reader (``ArchivePipeline``); the scans go with
    /// their run without their action strings, which stay on the reading thread: the
    /// analysis interns them again (``EnvelopeScanner/reintern(_:in:)``), so no string's
    /// reference count bounces between cores.
    func next(plain: (ArraySlice<UInt8>, [ArchiveReader.PlainLine], [(offset: Int, envelope: ScannedEnvelope)]) -> Void) -> ArchiveReading? {
        next(reader) { run, lines, scans in
            var scans = scans
            for i in scans.indices { scans[i].envelope.action = "" }
            plain(run, lines, scans)
        }
    }
}

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
                Self.feed(run: run[...], lines: lines, scans: scans, reintern: true, to: &analyzer, lastTime: &lastTime)
            case .readings(let readings):
                for r in readings { feed(r, to: &analyzer, lastTime: &lastTime) }
            }
        }
        mapper.lastTime = lastTime
        return ran
    }
}
