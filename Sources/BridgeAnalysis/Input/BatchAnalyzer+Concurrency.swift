import BridgeArchive

extension BatchAnalyzer {
    /// Analyses one input as ``analyze(_:)`` does, on two tasks: one reads (for an
    /// archive: decompresses and cuts lines), the other interprets and analyses; batches
    /// go through a channel bounded to 2 MiB. On two free cores a large archive is
    /// analysed in about the time its decompression takes.
    public func analyzeConcurrently(_ path: String) async -> Result<AnalysisReport, AnalysisError> {
        let source: any AnalysisEventSource
        do throws(AnalysisError) { source = try opener(path, false) } catch { return .failure(error) }
        var analyzer = SessionAnalyzer(source: path, configuration: configuration, logger: logger)
        if let archive = source as? ArchiveEventSource {
            let lines = Handoff(archive.reader.lines)
            let channel = EventChannel<ArchiveLineReader.Item>()
            async let reading: Void = Self.readLines(lines, into: channel)
            var interpreter = archive.reader.interpreter
            var mapper = archive.mapper
            var readings: [ArchiveReading] = []
            var events: [AnalysisEvent] = []
            func feed() {
                for r in readings { mapper.map(r, into: &events) }
                for e in events { analyzer.feed(e) }
                readings.removeAll(keepingCapacity: true)
                events.removeAll(keepingCapacity: true)
            }
            while let batch = await channel.receive() {
                for item in batch {
                    interpreter.take(item, into: &readings)
                    feed()
                }
            }
            await reading
            if Task.isCancelled { return .failure(AnalysisError(.unreadableInput, "\(path): cancelled")) }
            interpreter.finish(compressedOffset: lines.value.compressedOffset, into: &readings)
            feed()
        } else {
            let channel = EventChannel<AnalysisEvent>()
            async let reading: Void = Self.readEvents(Handoff(source), into: channel)
            while let batch = await channel.receive() {
                for event in batch { analyzer.feed(event) }
            }
            await reading
            if let error = await channel.error { return .failure(error) }
        }
        return .success(analyzer.finish())
    }

    /// Batches handed over: at most 256 items or about 256 KiB each.
    static let batchItems = 256, batchBytes = 256 << 10

    /// Sends the lines of an archive to `channel` in batches, then finishes it.
    static func readLines(_ lines: Handoff<ArchiveLineReader>, into channel: EventChannel<ArchiveLineReader.Item>) async {
        var batch: [ArchiveLineReader.Item] = []
        var bytes = 0
        while let item = lines.value.next() {
            batch.append(item)
            if case .line(let l) = item { bytes += l.slice.count }
            if bytes >= batchBytes || batch.count >= batchItems {
                await channel.send(batch, bytes: bytes)
                batch = []
                bytes = 0
                if Task.isCancelled { break }
            }
        }
        if !batch.isEmpty { await channel.send(batch, bytes: bytes) }
        await channel.finish()
    }

    /// Sends the events of any other source to `channel` in batches, then finishes it.
    static func readEvents(_ source: Handoff<any AnalysisEventSource>, into channel: EventChannel<AnalysisEvent>) async {
        var reader = source.value
        var batch: [AnalysisEvent] = []
        var bytes = 0
        do throws(AnalysisError) {
            while let event = try reader.next() {
                batch.append(event)
                if case .message(_, _, _, _, let b, _) = event { bytes += b.count }
                if bytes >= batchBytes || batch.count >= batchItems {
                    await channel.send(batch, bytes: bytes)
                    batch = []
                    bytes = 0
                    if Task.isCancelled { throw AnalysisError(.unreadableInput, "cancelled") }
                }
            }
            if !batch.isEmpty { await channel.send(batch, bytes: bytes) }
            await channel.finish()
        } catch {
            await channel.finish(error)
        }
    }
}
