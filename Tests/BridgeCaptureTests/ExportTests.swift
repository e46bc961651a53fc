import BridgeArchive
import BridgeCapture
import BridgePcap
import BridgeProxy
import BridgeTestSupport
import Foundation
import Testing

/// `bridgescope export`: pcapng that decodes back (and in tshark) to the same messages,
/// HAR in Chrome's WebSocket layout, JSON Lines that `record --tap` reads back.
@Suite(.serialized)
struct ExportTests {
    static let base: Int64 = 1_700_000_000_000_000_000
    static let tshark = ["/usr/bin/tshark", "/usr/local/bin/tshark"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// An archive with two captured connections, a proxy connection, unicode, a message
    /// needing `text`, a binary one and one of 100 kB (several TCP segments).
    static func sampleArchive() throws -> (path: String, records: [ArchiveRecord]) {
        let path = temporaryPath("export-sample-\(UUID().uuidString).bsz")
        let writer = try ArchiveWriter(path: path, header: ArchiveHeader(source: "test", startTime: base, toolVersion: "test"))
        var records: [ArchiveRecord] = []
        func add(_ t: Int64, _ d: ArchiveDirection, _ c: String, _ p: [UInt8]) throws {
            try writer.append(time: base + t, direction: d, connection: c, payload: p)
            records.append(ArchiveRecord(time: base + t, direction: d, connection: c, payload: p))
        }
        let a = "10.0.0.5:50412-10.0.0.9:8787", b = "127.0.0.1:40000-127.0.0.1:8787"
        try writer.append(ArchiveEvent(time: base, kind: .open, connection: a))
        try writer.append(ArchiveEvent(time: base, kind: .open, connection: "c1", reason: "page 127.0.0.1:1 to ws://127.0.0.1:8787/bridge"))
        for i in 0..<20 {
            try add(Int64(i) * 1000 + 1, .webToHost, i % 2 == 0 ? a : b, Array(#"{"version":"1.0","correlationId":"r\#(i)","type":"request","payload":{"action":"capability.query"}}"#.utf8))
            try add(Int64(i) * 1000 + 500, .hostToWeb, i % 2 == 0 ? a : b, Array(#"{"version":"1.0","correlationId":"r\#(i)","type":"response","payload":{"status":"success","n":"é→\#(i)"}}"#.utf8))
        }
        try add(30_000, .webToHost, "c1", Array("{\n  \"pretty\": true\n}".utf8))
        try add(30_001, .hostToWeb, "c1", [0xFF, 0x00, 0x80, 0x7B])
        let big = #"{"version":"1.0","payload":{"data":{"imageData":""# + String(repeating: "QUJD", count: 25_000) + #""}}}"#
        try add(30_002, .hostToWeb, a, Array(big.utf8))
        try writer.append(ArchiveEvent(time: base + 40_000, kind: .close, connection: a, reason: "FIN"))
        try writer.finish()
        return (path, records)
    }

    static func byConnection(_ records: [ArchiveRecord]) -> [String: [[UInt8]]] {
        var out: [String: [[UInt8]]] = [:]
        for r in records { out[r.connection + " " + r.direction.rawValue, default: []].append(r.payload) }
        return out
    }

    @Test func pcapngDecodesBackToTheSameMessages() throws {
        let (archive, records) = try Self.sampleArchive()
        let pcapng = temporaryPath("export.pcapng")
        defer { for p in [archive, pcapng] { try? FileManager.default.removeItem(atPath: p) } }
        #expect(try ArchiveExport.run(archive: archive, to: [.init(path: pcapng, exporter: PcapngExporter())]).isEmpty)

        var outputs: [CaptureOutput] = []
        let summary = try CaptureRunner(source: .file(pcapng)).run { outputs.append($0) }
        #expect(summary.statistics.gaps == 0 && summary.statistics.errors == 0 && summary.statistics.malformed == 0)
        let decoded = outputs.messages
        #expect(decoded.count == records.count)
        // Connection ids of captures are kept; other ids get synthesized addresses.
        var back: [String: [[UInt8]]] = [:]
        for m in decoded { back[m.connection + " " + m.direction, default: []].append(m.bytes) }
        let expected = Self.byConnection(records)
        for (key, messages) in expected where key.hasPrefix("10.0.0.5") || key.hasPrefix("127.0.0.1") {
            #expect(back[key] == messages, "\(key)")
        }
        #expect(Set(back.values.map { $0 }) == Set(expected.values.map { $0 }))
        #expect(outputs.filter { if case .open = $0 { return true }; return false }.count == 3)
    }

    @Test(.enabled(if: tshark != nil, "tshark is not installed; skipped"))
    func tsharkDecodesTheSameTextMessages() throws {
        let (archive, records) = try Self.sampleArchive()
        let pcapng = temporaryPath("tshark.pcapng")
        defer { for p in [archive, pcapng] { try? FileManager.default.removeItem(atPath: p) } }
        _ = try ArchiveExport.run(archive: archive, to: [.init(path: pcapng, exporter: PcapngExporter())])
        // One line per packet with a frame; -E aggregator keeps several frames apart.
        let result = try runProcess(URL(fileURLWithPath: Self.tshark!),
                                    ["-r", pcapng, "-Y", "websocket", "-T", "fields", "-E", "aggregator=\u{1F}",
                                     "-e", "websocket.payload.text", "-o", "gui.max_tree_depth:2000"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let texts = lines.flatMap { $0.split(separator: "\u{1F}") }.map(String.init).filter { !$0.isEmpty }
        // tshark prints text frames (not the binary one); single-line JSON compares exactly.
        let expected = records.filter { String(validating: $0.payload, as: UTF8.self) != nil }
        #expect(texts.count == expected.count, "tshark saw \(texts.count) text frames")
        let simple = expected.map { String(decoding: $0.payload, as: UTF8.self) }.filter { !$0.contains("\n") }
        #expect(Set(simple).isSubset(of: Set(texts)))
    }

    @Test func harHasChromesWebSocketLayout() throws {
        let (archive, records) = try Self.sampleArchive()
        let har = temporaryPath("export.har")
        defer { for p in [archive, har] { try? FileManager.default.removeItem(atPath: p) } }
        _ = try ArchiveExport.run(archive: archive, to: [.init(path: har, exporter: HARExporter(toolVersion: "9.9"))])
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har))) as! [String: Any]
        let log = json["log"] as! [String: Any]
        #expect(log["version"] as? String == "1.2")
        #expect((log["creator"] as? [String: Any])?["version"] as? String == "9.9")
        let entries = log["entries"] as! [[String: Any]]
        #expect(entries.count == 3)
        let urls = entries.map { ($0["request"] as! [String: Any])["url"] as! String }
        #expect(urls == ["ws://10.0.0.9:8787/", "ws://127.0.0.1:8787/bridge", "ws://127.0.0.1:8787/"])
        for e in entries {
            #expect(e["_resourceType"] as? String == "websocket")
            #expect((e["response"] as? [String: Any])?["status"] as? Int == 101)
            #expect((e["startedDateTime"] as? String)?.hasPrefix("2023-11-14T22:13:20.") == true)
        }
        let first = entries[0]["_webSocketMessages"] as! [[String: Any]]
        let fromA = records.filter { $0.connection == "10.0.0.5:50412-10.0.0.9:8787" }
        #expect(first.count == fromA.count)
        #expect(first[0]["type"] as? String == "send" && first[1]["type"] as? String == "receive")
        #expect(first[0]["opcode"] as? Int == 1)
        #expect(first[0]["data"] as? String == String(decoding: fromA[0].payload, as: UTF8.self))
        #expect(first[1]["data"] as? String == String(decoding: fromA[1].payload, as: UTF8.self), "unicode text kept")
        #expect(abs((first[0]["time"] as! Double) - 1_700_000_000.000001) < 1e-6)
        let proxy = entries[1]["_webSocketMessages"] as! [[String: Any]]
        #expect(proxy.map { $0["opcode"] as? Int } == [1, 2])
        #expect(proxy[1]["data"] as? String == "/wCAew==")
    }

    @Test func jsonLinesAreATapLogThatRecordsBackToTheSameRecords() throws {
        let (archive, records) = try Self.sampleArchive()
        let jsonl = temporaryPath("export.jsonl"), again = temporaryPath("again.bsz")
        defer { for p in [archive, jsonl, again] { try? FileManager.default.removeItem(atPath: p) } }
        _ = try ArchiveExport.run(archive: archive, to: [.init(path: jsonl, exporter: TapLogExporter())])
        let lines = try String(contentsOfFile: jsonl, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == records.count)
        #expect(lines[0].hasPrefix(#"{"t":1700000000000000001,"dir":"w2h","conn":"10.0.0.5:50412-10.0.0.9:8787","msg":{"version""#))
        var source = try TapSource(path: jsonl)
        let trailer = try ArchiveRecorder.record(&source, to: again, toolVersion: "test")
        #expect(trailer.errors == 0)
        let back = try ArchiveReader(path: again).readAllRecords()
        #expect(back.map(\.payload) == records.map(\.payload))
        #expect(back.map(\.time) == records.map(\.time))
        #expect(back.map(\.direction) == records.map(\.direction))
        #expect(back.map(\.connection) == records.map(\.connection))
    }

    @Test func theCommandExportsAndReportsDamage() throws {
        try #require(FileManager.default.isExecutableFile(atPath: ProjectPaths.binary.path), "run `swift build` first")
        let (archive, records) = try Self.sampleArchive()
        let out = temporaryPath("cli.jsonl"), cut = temporaryPath("cut.bsz"), har = temporaryPath("cli.har")
        defer { for p in [archive, out, cut, har] { try? FileManager.default.removeItem(atPath: p) } }
        let ok = try runBridgescope(["export", archive, "--jsonl", out, "--har", har])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").count == records.count)
        let stdout = try runBridgescope(["export", archive, "--jsonl", "-"])
        #expect(stdout.stdout.split(separator: "\n").count == records.count)

        let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        try bytes.prefix(bytes.count - 40).write(to: URL(fileURLWithPath: cut))
        let damaged = try runBridgescope(["export", cut, "--jsonl", out])
        #expect(damaged.status == 1)
        #expect(damaged.stderr.contains("warning:"))

        #expect(try runBridgescope(["export", archive]).status == 2)
        #expect(try runBridgescope(["export", "/nonexistent.bsz", "--har", har]).status == 2)
    }
}
