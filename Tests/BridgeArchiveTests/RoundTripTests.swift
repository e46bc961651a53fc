import BridgeArchive
import Foundation
import Testing

@Suite("Round trip: what was captured is what a reader returns")
struct RoundTripTests {
    /// Payloads covering the three encodings and their edges.
    static let cases: [(String, [UInt8], ArchivePayloadEncoding)] = [
        ("plain envelope", Array(#"{"version":"1.0","correlationId":"a","type":"request","timestamp":1,"payload":{"action":"x"}}"#.utf8), .message),
        ("unicode envelope", Array(#"{"name":"Zoë 🇫🇷 — ünïcödé","rtl":"مرحبا","esc":"\u00e9\ud83d\ude00"}"#.utf8), .message),
        ("escaped newline inside a string", Array(#"{"a":"line1\nline2\r\n"}"#.utf8), .message),
        ("whitespace between tokens (no newline)", Array("{ \"a\" :\t[1, 2 ,3] }".utf8), .message),
        ("number and literal texts", Array("1700000000000".utf8), .message),
        ("duplicate keys kept verbatim", Array(#"{"a":1,"a":2}"#.utf8), .message),
        ("raw newline inside a string (invalid JSON)", Array("{\"a\":\"line1\nline2\"}".utf8), .text),
        ("pretty-printed JSON (raw newlines between tokens)", Array("{\n  \"a\": 1\n}".utf8), .text),
        ("CR between tokens", Array("{\"a\":1,\r\"b\":2}".utf8), .text),
        ("leading whitespace", Array(" {\"a\":1}".utf8), .text),
        ("trailing whitespace", Array("{\"a\":1} ".utf8), .text),
        ("not JSON at all", Array("hello, world \u{1F600}".utf8), .text),
        ("truncated JSON", Array(#"{"a":"#.utf8), .text),
        ("control bytes and quotes", [0x00, 0x01, 0x1F, 0x22, 0x5C, 0x7F, 0x41], .text),
        ("empty message", [], .text),
        ("invalid UTF-8 (lone continuation byte)", [0x7B, 0x80, 0x7D], .base64),
        ("invalid UTF-8 (overlong, surrogate, 0xFF)", [0xC0, 0xAF, 0xED, 0xA0, 0x80, 0xFF], .base64),
        ("binary of every length mod 3", [0xFF], .base64),
        ("binary of 2 bytes", [0xFF, 0xFE], .base64),
        ("binary of 3 bytes", [0xFF, 0xFE, 0xFD], .base64),
    ]

    @Test("each case is stored in its expected form and read back byte for byte", arguments: 0..<cases.count)
    func roundTrip(_ index: Int) throws {
        let (name, bytes, expected) = Self.cases[index]
        #expect(ArchivePayloadEncoding.preferred(for: bytes) == expected, "\(name)")
        let dir = TemporaryDirectory()
        let path = dir.file("a.bsz")
        let writer = try ArchiveWriter(path: path, header: Sessions.header)
        try writer.append(time: 42, direction: .webToHost, connection: "c\"1\u{1}", payload: bytes)
        try writer.finish(endTime: 43)
        let reader = try ArchiveReader(path: path)
        let (records, _, findings) = reader.drain()
        #expect(findings.isEmpty, "\(name): \(findings)")
        try #require(records.count == 1)
        #expect(records[0].payload == bytes, "\(name)")
        #expect(records[0].encoding == expected, "\(name)")
        #expect(records[0].connection == "c\"1\u{1}")
        #expect(records[0].time == 42)
        #expect(records[0].seq == 1)
    }

    @Test("times, sequence numbers and counts are written as String(value) spells them, at every magnitude")
    func decimals() throws {
        var times: [Int64] = [0, 1, 9, 10, 11, 99, 100, 101, 109, 110, 999, 1000, 1001, 10_005, 100_000, -1, -10, -105,
                              1_795_369_196_853_256_000, Int64.max, Int64.min, Int64.min + 1]
        var p: Int64 = 1
        for _ in 0..<18 { p *= 10; times += [p - 1, p, p + 1, -p] }
        let dir = TemporaryDirectory()
        let path = dir.file("d.bsz")
        let writer = try ArchiveWriter(path: path, header: Sessions.header)
        for t in times { try writer.append(time: t, direction: .webToHost, connection: "c", payload: Array("[]".utf8)) }
        try writer.append(ArchiveEvent(time: -7, kind: .gap, connection: "c", direction: .hostToWeb, bytes: 1_234_567))
        try writer.finish(endTime: 1_000_000_007)
        let lines = ArchiveLineReaderTests.lines(of: path)
        for (i, t) in times.enumerated() {
            #expect(lines[i + 1] == #"{"seq":\#(i + 1),"t":\#(t),"dir":"w2h","conn":"c","msg":[]}"#)
        }
        #expect(lines[times.count + 1] == #"{"seq":\#(times.count + 1),"t":-7,"event":"gap","conn":"c","dir":"h2w","bytes":1234567}"#)
        #expect(lines.last?.hasSuffix(#","endTime":1000000007}"#) == true)
        let (records, _, findings) = try ArchiveReader(path: path).drain()
        #expect(findings.isEmpty)
        #expect(records.map(\.time) == times)
    }

    @Test("a msg line holds the message bytes verbatim")
    func verbatim() throws {
        let msg = #"{"b" : 1,"a":[ 1.50, 1e2, -0 ],"s":"\u00e9"}"#
        let dir = TemporaryDirectory()
        let path = dir.file("a.bsz")
        let writer = try ArchiveWriter(path: path, header: Sessions.header)
        try writer.append(time: 5, direction: .hostToWeb, connection: "c", payload: Array(msg.utf8))
        try writer.finish(endTime: 6)
        let lines = ArchiveLineReaderTests.lines(of: path)
        #expect(lines[1] == #"{"seq":1,"t":5,"dir":"h2w","conn":"c","msg":"# + msg + "}")
    }

    @Test("a generated session round-trips, with header, trailer and counts")
    func session() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("s.bsz")
        let written = try Sessions.write(to: path, count: 500)
        let reader = try ArchiveReader(path: path)
        #expect(reader.header == Sessions.header)
        let (records, events, findings) = reader.drain()
        #expect(findings.isEmpty, "\(findings)")
        #expect(events.isEmpty)
        #expect(records == written)
        #expect(reader.trailer?.records == 500)
        #expect(reader.trailer?.bytes == written.reduce(0) { $0 + $1.payload.count })
    }

    @Test("events are numbered with records and counted in the trailer")
    func events() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("e.bsz")
        let writer = try ArchiveWriter(path: path, header: Sessions.header)
        try writer.append(ArchiveEvent(time: 1, kind: .open, connection: "c1"))
        try writer.append(time: 2, direction: .webToHost, connection: "c1", payload: Array("{}".utf8))
        try writer.append(ArchiveEvent(time: 3, kind: .gap, connection: "c1", direction: .hostToWeb, bytes: 1200))
        try writer.append(ArchiveEvent(time: 4, kind: .drop, count: 7))
        try writer.append(ArchiveEvent(time: 5, kind: .error, line: 12, reason: "bad line"))
        try writer.append(ArchiveEvent(time: 6, kind: .close, connection: "c1", reason: "peer closed"))
        let trailer = try writer.finish(endTime: 7)
        #expect(trailer == ArchiveTrailer(records: 1, events: 5, bytes: 2, drops: 7, gaps: 1, gapBytes: 1200, errors: 1, endTime: 7))
        let reader = try ArchiveReader(path: path)
        let (records, events, findings) = reader.drain()
        #expect(findings.isEmpty, "\(findings)")
        #expect(records.map(\.seq) == [2])
        #expect(events.map(\.seq) == [1, 3, 4, 5, 6])
        #expect(events[1] == ArchiveEvent(seq: 3, time: 3, kind: .gap, connection: "c1", direction: .hostToWeb, bytes: 1200))
        #expect(events[3].line == 12 && events[3].reason == "bad line")
        #expect(reader.trailer == trailer)
    }

}

enum ArchiveLineReaderTests {
    /// The decompressed lines of an archive, as strings.
    static func lines(of path: String) -> [String] {
        guard let reader = try? ArchiveLineReader(path: path) else { return [] }
        var out: [String] = []
        while let item = reader.next() {
            if case .line(let l) = item { out.append(String(decoding: l.bytes, as: UTF8.self)) }
        }
        return out
    }
}
