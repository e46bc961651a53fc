@_spi(Testing) @testable import BridgeArchive
import Foundation
import Testing

/// `ArchiveReader.nextReading(plain:)` (how `cat` and `export --jsonl` read): the plain
/// record lines it passes in runs, and the readings it hands out, are exactly the
/// lines and readings of ``ArchiveReader/nextReading()``, in the same order, with the
/// same findings and counts, on intact, damaged, truncated, salvaged and hand-made
/// archives (gaps, events, a trailer in the middle, lines after it, a non-plain record).
@Suite struct PlainRunTests {
    /// What a reader gave: every record's line number and bytes, other readings by kind
    /// and line, then the findings and counts.
    struct Trace: Equatable {
        var items: [String] = []
        var findings: [ArchiveFinding] = []
        var counts = ArchiveTrailer()
        var lastSequence = 0
    }

    static func describe(_ r: ArchiveReading) -> String {
        let line = r.line.map { "\($0.number) \($0.verified) " + String(decoding: $0.slice, as: UTF8.self) } ?? "-"
        switch r {
        case .record: return "record " + line
        case .event: return "event " + line
        case .trailer: return "trailer " + line
        case .finding(let f, _): return "finding \(f.kind) " + line
        }
    }

    static func reference(_ bytes: [UInt8], salvage: Bool, limit: Int) throws -> Trace {
        let reader = try ArchiveReader(source: MemoryByteSource(bytes), maxLineBytes: limit, salvage: salvage, sharedLines: true)
        var t = Trace()
        while let r = reader.nextReading() { t.items.append(describe(r)) }
        t.findings = reader.findings
        t.counts = reader.counts
        t.lastSequence = reader.lastSequence
        return t
    }

    static func bulk(_ bytes: [UInt8], salvage: Bool, limit: Int) throws -> (Trace, plain: Int) {
        let reader = try ArchiveReader(source: MemoryByteSource(bytes), maxLineBytes: limit, salvage: salvage, sharedLines: true)
        var t = Trace()
        var number = 1, plain = 0
        func note(_ r: ArchiveReading) {
            if let l = r.line { number = l.number }
            t.items.append(describe(r))
        }
        while let r = try reader.nextReading(plain: { (slice, lines) throws(ArchiveError) in
            if lines.isEmpty { return #expect(slice.isEmpty) }
            let run = Array(slice)
            // Lines of a run follow the last line handed out; their members must be where they say.
            // The lines fill the run, one after the other, each ended by its newline.
            #expect(lines.first?.range.lowerBound == 0 && lines.last.map { $0.range.upperBound + 1 } == run.count)
            for (p, next) in zip(lines, lines.dropFirst()) { #expect(next.range.lowerBound == p.range.upperBound + 1) }
            for p in lines {
                #expect(run[p.range.upperBound] == 0x0A)
                let text = Array(run[p.range])
                number += 1
                plain += 1
                t.items.append("record \(number) true " + String(decoding: text, as: UTF8.self))
                let msg = text[p.fields.msg]
                #expect(msg.first == UInt8(ascii: "{") && msg.last == UInt8(ascii: "}"))
            }
            #expect(run.last == 0x0A)
        }) {
            note(r)
        }
        t.findings = reader.findings
        t.counts = reader.counts
        t.lastSequence = reader.lastSequence
        return (t, plain)
    }

    static func record(_ seq: Int, _ conn: String = "c1", id: String = "r") -> String {
        #"{"seq":\#(seq),"t":1700000000000000000,"dir":"w2h","conn":"\#(conn)","msg":{"type":"request","action":"a","correlationId":"\#(id)\#(seq)","payload":{"x":[1,{"y":"]}"}]}}}"#
    }

    static let header = #"{"bridgescope":"session","formatVersion":1,"source":"test","host":null,"filter":null,"startTime":1,"toolVersion":"t"}"#

    @Test("the same lines, readings, findings and counts as reading line by line")
    func sameAsLineByLine() throws {
        let (large, _) = try DamageTests.largeArchive(records: 3000)
        var inputs: [[UInt8]] = [large, Array(large.prefix(large.count / 2)), Array(large.prefix(large.count - 7))]
        inputs += bitFlippedCopies(of: large, count: 10, seed: 0x9A1)
        // Hand-made: a gap, an event, a record in another member order, a record with
        // spaces, a trailer in the middle and a record after it, over two frames.
        let first = [Self.header, Self.record(1), Self.record(2), Self.record(4), Self.record(5),
                     #"{"seq":6,"t":1700000000000000001,"event":"gap","conn":"c1","dir":"h2w","bytes":10}"#,
                     Self.record(7), #"{"t":1700000000000000000,"seq":8,"dir":"h2w","conn":"c1","msg":{}}"#,
                     Self.record(9).replacingOccurrences(of: ",", with: " , ")]
        let second = [Self.record(10), Self.record(10), Self.record(11, "c/2"),
                      #"{"bridgescope":"trailer","records":11,"events":1,"bytes":0,"drops":0,"gaps":1,"gapBytes":10,"errors":0,"endTime":1700000000000000009}"#,
                      Self.record(12), Self.record(13)]
        inputs.append(ArchiveTesting.compressLines(first) + ArchiveTesting.compressLines(second))
        var plainSeen = 0
        for (n, input) in inputs.enumerated() {
            for salvage in [false, true] {
                for limit in [BridgeArchiveFormat.maxLineBytes, 300] {
                    let reference: Trace
                    do { reference = try Self.reference(input, salvage: salvage, limit: limit) } catch {
                        #expect(n != inputs.count - 1, "input \(n) unreadable: \(error)")
                        #expect(throws: ArchiveError.self) { try Self.bulk(input, salvage: salvage, limit: limit) }
                        continue
                    }
                    let (bulk, plain) = try Self.bulk(input, salvage: salvage, limit: limit)
                    #expect(bulk == reference, "input \(n), salvage \(salvage), limit \(limit)")
                    if n == inputs.count - 1 {
                        // The hand-made archive: a gap, a duplicate seq, lines after the trailer.
                        #expect(Set(reference.findings.map(\.kind)).isSuperset(of: [.sequenceGap, .unexpectedLine, .countMismatch]))
                        #expect(!reference.findings.contains { $0.kind == .invalidLine })
                    }
                    plainSeen += plain
                }
            }
        }
        #expect(plainSeen > 10_000)
    }

    @Test("a frame of many megabytes (one zstd frame, as a foreign writer makes) is handed out in parts of whole lines, at most 1 MiB each, as line by line")
    func largeFrameInParts() throws {
        let lines = [Self.header] + (1...12_000).map { Self.record($0, "c\($0 % 3)", id: String(repeating: "x", count: 40 + $0 % 200)) }
        let input = ArchiveTesting.compressLines(lines)
        let reference = try Self.reference(input, salvage: false, limit: BridgeArchiveFormat.maxLineBytes)
        let (bulk, plain) = try Self.bulk(input, salvage: false, limit: BridgeArchiveFormat.maxLineBytes)
        #expect(bulk == reference)
        #expect(plain > 11_000)
        let reader = try ArchiveReader(source: MemoryByteSource(input), sharedLines: true)
        var parts = 0, largest = 0
        while try reader.nextReading(plain: { (run, _) throws(ArchiveError) in
            if !run.isEmpty { parts += 1 }
            largest = max(largest, run.count)
            #expect(run.last == 0x0A)
        }) != nil {}
        #expect(lines.joined(separator: "\n").utf8.count > 3 << 20)
        #expect(parts >= 3 && largest <= ArchiveLineReader.plainPartBytes, "\(parts) parts, the largest \(largest) bytes")
    }

    @Test("export --jsonl writes the same tap log read by runs (on one thread or two) as reading by reading, messages that are not valid JSON and damaged frames included")
    func exportSameAsReadingByReading() throws {
        let lines = [Self.header, Self.record(1), #"{"seq":2,"t":5,"dir":"w2h","conn":"c1","msg":{abc}}"#,
                     #"{"seq":3,"t":6,"dir":"h2w","conn":"c1","msg":[1,2,]}"#, Self.record(4, "c 2"),
                     #"{"seq":5,"t":7,"dir":"h2w","conn":"c1","msg":{"a":"\u00e9\n"}}"#, Self.record(6),
                     #"{"seq":7,"t":8,"dir":"h2w","conn":"c1","msg":{"a":1},"seq":8}"#,
                     #"{"seq":8,"t":9,"dir":"h2w","conn":"c1","msg":{"a":\#r1}  }"#,
                     #"{"seq":9,"t":9,"dir":"h2w","conn":"c1","msg":{"a":1} ,"x":{"b":2}}"#, Self.record(10)]
        let (large, _) = try DamageTests.largeArchive(records: 3000)
        var flipped = large
        flipped[large.count / 2] ^= 0x20
        for (input, readAhead) in [(ArchiveTesting.compressLines(lines), false), (ArchiveTesting.compressLines(lines), true),
                                   (large, false), (large, true), (flipped, true), (Array(large.prefix(large.count * 2 / 3)), true)] {
            let dir = TemporaryDirectory()
            let archive = dir.file("a.bsz"), out = dir.file("a.jsonl")
            #expect(FileManager.default.createFile(atPath: archive, contents: Data(input)))
            let findings = try ArchiveExport.run(archive: archive, to: [ArchiveExport.Target(path: out, exporter: TapLogExporter())],
                                                 readAhead: readAhead)
            let reader = try ArchiveReader(source: MemoryByteSource(input))
            var expected: [UInt8] = []
            var exporter = TapLogExporter()
            while let r = reader.nextReading() {
                if case .finding = r { continue }
                exporter.write(reading: r, into: &expected)
            }
            #expect(readFile(out) == expected, "read ahead: \(readAhead)")
            #expect(findings == reader.findings)
            #expect(!expected.isEmpty)
        }
    }
}
