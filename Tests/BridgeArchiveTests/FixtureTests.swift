import BridgeArchive
import Foundation
import Testing

/// Format version 1, frozen: `Fixtures/v1/session.bsz` was written once by the
/// generator below and is read by every future build (docs/FORMAT.md §8). Never
/// regenerate it; a new format version gets a new fixture next to it.
enum FixtureV1 {
    static let directory = Paths.fixtures + "/v1"
    static let archive = directory + "/session.bsz"
    static let lines = directory + "/session.jsonl"

    static let header = ArchiveHeader(source: "tap:fixture.ndjson", host: "fixture-host", filter: nil,
                                      startTime: 1_700_000_000_000_000_000, toolVersion: "0.1.0")

    /// The records, in order: (direction, connection, payload, stored as).
    static let records: [(ArchiveDirection, String, [UInt8], ArchivePayloadEncoding)] = [
        (.webToHost, "c1", Array(#"{"version":"1.0","correlationId":"r1","type":"request","timestamp":1700000000000,"payload":{"action":"capability.query"}}"#.utf8), .message),
        (.hostToWeb, "c1", Array(#"{"version":"1.0","correlationId":"r1","type":"response","timestamp":1700000000040,"payload":{"action":"capability.query","status":"success","data":{"environment":"ios","hostVersion":"2.1","capabilities":{"camera.document":{"supported":true,"version":"1"}}}}}"#.utf8), .message),
        (.webToHost, "c1", Array(#"{"version":"1.0","correlationId":"r2","type":"request","timestamp":1700000000100,"payload":{"action":"camera.document.capture","data":{"documentType":"passport","side":"front","note":"Zoë 🇫🇷 \n"}}}"#.utf8), .message),
        (.hostToWeb, "c1", Array("{\n  \"pretty\": true\n}".utf8), .text),
        (.hostToWeb, "c2", Array("{\"raw newline\":\"a\nb\"}".utf8), .text),
        (.webToHost, "c2", [0x7B, 0xFF, 0xFE, 0x00, 0x7D], .base64),
        (.webToHost, "c2", Array(#"{"a":1,"a":2}"#.utf8), .message),
    ]

    /// The events, by the position they take among the lines (seq).
    static let events: [Int: ArchiveEvent] = [
        1: ArchiveEvent(time: 1_700_000_000_010_000_000, kind: .open, connection: "c1"),
        5: ArchiveEvent(time: 1_700_000_000_050_000_000, kind: .gap, connection: "c1", direction: .hostToWeb, bytes: 512),
        6: ArchiveEvent(time: 1_700_000_000_060_000_000, kind: .drop, count: 3),
        9: ArchiveEvent(time: 1_700_000_000_090_000_000, kind: .error, line: 42, reason: "not valid JSON"),
        11: ArchiveEvent(time: 1_700_000_000_110_000_000, kind: .close, connection: "c1", reason: "peer closed"),
    ]

    static let endTime: Int64 = 1_700_000_001_000_000_000

    /// Writes the fixture (only with BSZ_WRITE_FIXTURES=1; see above).
    static func write(to path: String) throws {
        let writer = try ArchiveWriter(path: path, header: header)
        var next = 0
        for seq in 1...(records.count + events.count) {
            if let e = events[seq] {
                try writer.append(e)
            } else {
                let (dir, conn, payload, _) = records[next]
                try writer.append(time: 1_700_000_000_000_000_000 + Int64(seq) * 10_000_000, direction: dir,
                                  connection: conn, payload: payload)
                next += 1
            }
        }
        try writer.finish(endTime: endTime)
    }
}

@Suite("Format version 1 fixture, read forever")
struct FixtureTests {
    @Test("(re)generate the fixture", .enabled(if: ProcessInfo.processInfo.environment["BSZ_WRITE_FIXTURES"] == "1"))
    func generate() throws {
        try FileManager.default.createDirectory(atPath: FixtureV1.directory, withIntermediateDirectories: true)
        try FixtureV1.write(to: FixtureV1.archive)
        let text = ArchiveLineReaderTests.lines(of: FixtureV1.archive).map { $0 + "\n" }.joined()
        try Data(text.utf8).write(to: URL(fileURLWithPath: FixtureV1.lines))
    }

    @Test("the v1 fixture reads back: header, records byte for byte, events, trailer, no findings")
    func read() throws {
        let reader = try ArchiveReader(path: FixtureV1.archive)
        #expect(reader.header == FixtureV1.header)
        #expect(reader.header.formatVersion == 1)
        var records: [ArchiveRecord] = []
        var events: [ArchiveEvent] = []
        var rawLines: [[UInt8]] = [reader.headerLine.bytes]
        while let (item, line) = reader.nextWithLine() {
            if let line { rawLines.append(line.bytes) }
            switch item {
            case .record(let r): records.append(r)
            case .event(let e): events.append(e)
            case .trailer, .finding: break
            }
        }
        #expect(reader.findings.isEmpty, "\(reader.findings)")
        try #require(records.count == FixtureV1.records.count)
        for (r, (dir, conn, payload, encoding)) in zip(records, FixtureV1.records) {
            #expect(r.direction == dir)
            #expect(r.connection == conn)
            #expect(r.payload == payload, "seq \(r.seq)")
            #expect(r.encoding == encoding, "seq \(r.seq)")
        }
        var expectedEvents: [ArchiveEvent] = []
        for (seq, event) in FixtureV1.events.sorted(by: { $0.key < $1.key }) {
            var e = event
            e.seq = seq
            expectedEvents.append(e)
        }
        #expect(events == expectedEvents)
        #expect(reader.trailer == ArchiveTrailer(records: 7, events: 5, bytes: FixtureV1.records.reduce(0) { $0 + $1.2.count },
                                                 drops: 3, gaps: 1, gapBytes: 512, errors: 1, endTime: FixtureV1.endTime))
        // The archive's lines are exactly the committed JSON Lines.
        let expected = try String(contentsOfFile: FixtureV1.lines, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(rawLines.map { String(decoding: $0, as: UTF8.self) } == expected.dropLast().map(String.init))
    }

    @Test("a msg value is the slice between \"msg\": and the closing brace of the committed line")
    func slicing() throws {
        let text = try String(contentsOfFile: FixtureV1.lines, encoding: .utf8)
        let msgLines = text.split(separator: "\n").filter { $0.contains(#","msg":"#) }
        let payloads = FixtureV1.records.filter { $0.3 == .message }.map { String(decoding: $0.2, as: UTF8.self) }
        #expect(msgLines.map { String($0[$0.range(of: #","msg":"#)!.upperBound...].dropLast()) } == payloads)
    }
}
