import BridgeArchive
import BridgeCapture
import BridgePcap
import BridgeProxy
import Foundation
import Testing

/// `record --read` end to end: captures through ``PcapRecordingSource`` into archives.
struct PcapRecordingSourceTests {
    static func record(_ pcap: String, options: CaptureRunOptions = .init(), transform: ArchiveMessageTransform? = nil) throws -> (RecordedExchange, ArchiveTrailer, String) {
        var source = try PcapRecordingSource(source: .file(pcap), options: options)
        let path = temporaryPath("\(UUID().uuidString).bsz")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let trailer = try ArchiveRecorder.record(&source, to: path, toolVersion: "test", transform: transform)
        let reader = try ArchiveReader(path: path)
        #expect(reader.header.source == "pcap-file:\(pcap)")
        return (try RecordedExchange(archive: path), trailer, reader.header.source)
    }

    @Test func theRealCapturesGiveTheirReadmeCounts() throws {
        let (chrome, chromeTrailer, _) = try Self.record(TestData.websocketCapture("chrome_ws.pcap"))
        #expect(chrome.webToHost.count == 1 && chrome.hostToWeb.count == 1)
        #expect(chromeTrailer.records == 2)
        #expect(chrome.events(.open).count == 1 && chrome.events(.close).count == 1)
        #expect(String(decoding: chrome.webToHost[0], as: UTF8.self).hasPrefix(#"{"version":"1.0""#))

        let (bulk, bulkTrailer, _) = try Self.record(TestData.websocketCapture("bulk_deflate.pcap"))
        #expect(bulkTrailer.records == 50_000)
        #expect(bulk.webToHost.count == 25_000 && bulk.hostToWeb.count == 25_000)
        #expect(bulkTrailer.gaps == 0 && bulkTrailer.errors == 0 && bulkTrailer.drops == 0)
        #expect(bulk.findings.isEmpty)
    }

    @Test func decodedOutputsBecomeEventsOfTheSameKind() throws {
        let archive = temporaryPath("events.bsz")
        defer { try? FileManager.default.removeItem(atPath: archive) }
        let writer = try ArchiveWriter(path: archive, header: ArchiveHeader(source: "test", startTime: 1, toolVersion: "test"))
        let outputs: [CaptureOutput] = [
            .open(time: 10, connection: "a-b", endpoints: ConnectionEndpoints(
                client: Endpoint(address: .v4(0x7F00_0001), port: 5), server: Endpoint(address: .v4(0x7F00_0001), port: 6))),
            .message(time: 11, direction: .webToHost, connection: "a-b", bytes: Array("{}".utf8)),
            .gap(time: 12, connection: "a-b", direction: .hostToWeb, bytes: 99),
            .drop(time: 13, count: 4),
            .error(time: 14, connection: nil, text: "bad"),
            .close(time: 15, connection: "a-b", reason: "FIN both ways"),
        ]
        for o in outputs { try PcapRecordingSource.write(o, to: writer) }
        let trailer = try writer.finish()
        #expect(trailer.records == 1 && trailer.events == 5 && trailer.drops == 4 && trailer.gaps == 1
                && trailer.gapBytes == 99 && trailer.errors == 1)
        let read = try RecordedExchange(archive: archive)
        #expect(read.events.map(\.kind) == [.open, .gap, .drop, .error, .close])
        #expect(read.events.map(\.time) == [10, 12, 13, 14, 15])
        #expect(read.events[1].direction == .hostToWeb && read.events[1].connection == "a-b")
        #expect(read.events[4].reason == "FIN both ways")
    }

    @Test func redactionAppliesToPcapAndTapSourcesAlike() throws {
        let image = String(repeating: "QUJD", count: 50)
        let message = #"{"version":"1.0","correlationId":"c","type":"response","timestamp":1,"payload":{"action":"camera.document.capture","status":"success","data":{"imageData":"\#(image)","width":2}}}"#
        // A tap log with that message.
        let tap = temporaryPath("redact.ndjson")
        try #"{"t":1700000000000,"dir":"h2w","msg":\#(message)}"#.appending("\n").write(toFile: tap, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: tap) }
        var count = 0
        let transform = Redactor().archiveTransform { count += $0 }
        var source = try TapSource(path: tap)
        let path = temporaryPath("redact-tap.bsz")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let trailer = try ArchiveRecorder.record(&source, to: path, toolVersion: "test", transform: transform)
        let records = try ArchiveReader(path: path).readAllRecords()
        let text = String(decoding: records[0].payload, as: UTF8.self)
        #expect(count == 1)
        #expect(!text.contains(image))
        #expect(text.contains(#""imageData":{"redacted":true,"sha256":""#))
        #expect(text.contains(#""bytes":200}"#))
        #expect(trailer.bytes == records[0].payload.count)

        // The same transform leaves messages without sensitive fields byte for byte.
        let plain = Array(#"{"a": 1}"#.utf8)
        #expect(plain.withUnsafeBytes { transform($0) } == nil)
    }
}
