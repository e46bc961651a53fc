@_spi(Testing) import BridgeArchive
import Testing

@Suite("Reader: header validation and line-level findings")
struct ReaderFindingsTests {
    static let header = #"{"bridgescope":"session","formatVersion":1,"source":"test","host":null,"filter":null,"startTime":1,"toolVersion":"x"}"#

    static func read(_ lines: [String]) throws(ArchiveError) -> ArchiveReader {
        try ArchiveReader(source: MemoryByteSource(ArchiveTesting.compressLines(lines)))
    }

    @Test("an unknown formatVersion is refused with the versions this build reads", arguments: [2, 0, 99])
    func unknownVersion(_ version: Int) {
        let line = #"{"bridgescope":"session","formatVersion":\#(version),"source":"test","startTime":1,"toolVersion":"x","newField":[1]}"#
        do {
            _ = try Self.read([line])
            Issue.record("accepted version \(version)")
        } catch {
            #expect(error.code == .unsupportedVersion)
            #expect(error.message.contains("version \(version) is not supported"))
            #expect(error.message.contains("this build reads version 1"))
        }
    }

    @Test("malformed headers are refused with a reason")
    func badHeaders() {
        let cases: [(String, ArchiveError.Code)] = [
            (#"{"bridgescope":"session","source":"test","startTime":1,"toolVersion":"x"}"#, .invalidHeader),
            (#"{"bridgescope":"session","formatVersion":"1","source":"test","startTime":1,"toolVersion":"x"}"#, .invalidHeader),
            (#"{"bridgescope":"session","formatVersion":1,"startTime":1,"toolVersion":"x"}"#, .invalidHeader),
            (#"{"bridgescope":"session","formatVersion":1,"source":"s","startTime":1.5,"toolVersion":"x"}"#, .invalidHeader),
            (#"{"seq":1,"t":1,"dir":"w2h","conn":"c","msg":{}}"#, .notAnArchive),
        ]
        for (line, code) in cases {
            do {
                _ = try Self.read([line])
                Issue.record("accepted \(line)")
            } catch {
                #expect(error.code == code, "\(line): \(error)")
            }
        }
    }

    @Test("unknown header members are kept; a header with only required members is read")
    func headerExtras() throws {
        let r = try Self.read([#"{"bridgescope":"session","formatVersion":1,"source":"s","startTime":5,"toolVersion":"v","future":{"x":1}}"#])
        #expect(r.header.extra.map(\.key) == ["future"])
        #expect(r.header.host == nil)
        #expect(r.drain().findings.map(\.kind) == [.missingTrailer])
    }

    @Test("bad lines are skipped and reported with their line numbers; reading goes on")
    func badLines() throws {
        let reader = try Self.read([
            Self.header,
            #"{"seq":1,"t":1,"dir":"w2h","conn":"c","msg":{"ok":1}}"#,
            #"not json"#,
            #"{"seq":3,"t":1,"dir":"w2h","conn":"c","msg":{},"text":"x"}"#,
            #"{"seq":4,"t":1,"dir":"w2h","conn":"c","b64":"%%%%"}"#,
            #"{"hello":"world"}"#,
            #"{"seq":6,"t":1,"dir":"w2h","conn":"c"}"#,
            #"{"seq":7,"seq":7,"t":1,"dir":"w2h","conn":"c","msg":1}"#,
            #"{"seq":9,"t":2,"dir":"h2w","conn":"c","text":"ok"}"#,
            #"{"bridgescope":"trailer","records":5,"events":0,"bytes":10,"drops":0,"gaps":0,"endTime":3}"#,
            #"{"seq":10,"t":1,"dir":"w2h","conn":"c","msg":2}"#,
        ])
        let (records, _, findings) = reader.drain()
        #expect(records.map(\.seq) == [1, 9, 10])
        let invalid = findings.filter { $0.kind == .invalidLine }
        #expect(invalid.map(\.line) == [3, 4, 5, 6, 7, 8])
        #expect(invalid.allSatisfy { $0.lastSequence == 1 })
        #expect(invalid[0].message.contains("not valid JSON"))
        #expect(invalid[1].message.contains("more than one"))
        #expect(invalid[2].message.contains("base64"))
        #expect(invalid[3].message.contains("not a header, record, event or trailer"))
        #expect(invalid[4].message.contains("none of"))
        #expect(invalid[5].message.contains("twice"))
        let gap = try #require(findings.first { $0.kind == .sequenceGap })
        #expect(gap.message.contains("seq 9 follows seq 1 (7 lines missing)"))
        #expect(findings.contains { $0.kind == .countMismatch })
        #expect(findings.contains { $0.kind == .unexpectedLine && $0.line == 11 })
        #expect(!findings.contains { $0.kind == .missingTrailer })
    }

    @Test("a line longer than the limit is skipped unread and reported; the next lines are read")
    func longLine() throws {
        let long = #"{"seq":2,"t":1,"dir":"w2h","conn":"c","text":""# + String(repeating: "z", count: 5000) + #""}"#
        let bytes = ArchiveTesting.compressLines([
            Self.header, #"{"seq":1,"t":1,"dir":"w2h","conn":"c","msg":1}"#, long,
            #"{"seq":3,"t":1,"dir":"w2h","conn":"c","msg":3}"#,
        ])
        let reader = try ArchiveReader(source: MemoryByteSource(bytes), maxLineBytes: 1000)
        let (records, _, findings) = reader.drain()
        #expect(records.map(\.seq) == [1, 3])
        #expect(findings.first?.kind == .lineTooLong)
        #expect(findings.first?.line == 3)
        #expect(findings.contains { $0.kind == .sequenceGap })
    }

    @Test("a last line without a newline is dropped and reported")
    func partialLastLine() throws {
        let text = Self.header + "\n" + #"{"seq":1,"t":1,"dir":"w2h","conn":"c","msg":1}"# + "\n" + #"{"seq":2,"t":1,"dir""#
        let reader = try ArchiveReader(source: MemoryByteSource(ArchiveTesting.compressFrame(Array(text.utf8))))
        let (records, _, findings) = reader.drain()
        #expect(records.map(\.seq) == [1])
        #expect(findings.map(\.kind) == [.partialLine, .missingTrailer])
        #expect(findings[0].line == 3)
        #expect(findings[0].message.contains("20 bytes"))
    }

    @Test("frames may be concatenated from separate writers (zstd multi-frame)")
    func concatenated() throws {
        let a = ArchiveTesting.compressLines([Self.header, #"{"seq":1,"t":1,"dir":"w2h","conn":"c","msg":1}"#])
        let b = ArchiveTesting.compressLines([#"{"seq":2,"t":1,"dir":"w2h","conn":"c","msg":2}"#], checksum: false)
        let reader = try ArchiveReader(source: MemoryByteSource(a + b))
        #expect(reader.drain().records.map(\.seq) == [1, 2])
    }
}
