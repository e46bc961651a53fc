import BridgeTestSupport
@_spi(Testing) import BridgeArchive
import Foundation
import Testing

/// `cat` prints each line of the archive once, also when a finding is about a line that
/// is read as an item too (a record after a sequence gap, a trailer whose counts
/// disagree): the lines out are the lines in.
@Suite struct CatOnceTests {
    func cat(_ lines: [String]) throws -> [String] {
        let dir = TestScratch.rootURL.appendingPathComponent("cat-once-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("g.bsz").path, output = dir.appendingPathComponent("out").path
        try Data(ArchiveTesting.compressLines(lines)).write(to: URL(fileURLWithPath: input))
        let fd = open(output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        _ = try ArchiveCat().run(path: input, to: fd)
        close(fd)
        return try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test func aRecordAfterAGapAndAMiscountedTrailerArePrintedOnce() throws {
        let lines = [
            ReaderFindingsTests.header,
            #"{"seq":1,"t":1,"dir":"w2h","conn":"c","text":"a"}"#,
            #"{"seq":5,"t":2,"dir":"h2w","conn":"c","text":"b"}"#,
            #"{"bridgescope":"trailer","records":9,"events":0,"bytes":2,"drops":0,"gaps":0,"endTime":3}"#,
        ]
        #expect(try cat(lines) == lines)
    }

    @Test func anInvalidLineIsStillPrinted() throws {
        let lines = [ReaderFindingsTests.header, #"{"seq":1,"t":1,"dir":"w2h","conn":"c","text":"a"}"#, "not json",
                     #"{"seq":2,"t":1,"dir":"w2h","conn":"c","text":"b"}"#]
        #expect(try cat(lines) == lines)
    }
}
