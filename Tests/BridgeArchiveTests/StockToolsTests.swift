import BridgeArchive
import Foundation
import Testing

/// Runs `/bin/sh -c script`; returns (status, stdout, stderr).
func shell(_ script: String) throws -> (Int32, Data, String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", script]
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, data, String(decoding: errData, as: UTF8.self))
}

@Suite("Stock tools read archives: zstdcat | jq")
struct StockToolsTests {
    static let tools: String? = {
        let missing = ["zstd", "zstdcat", "jq"].filter { Paths.tool($0) == nil }
        return missing.isEmpty ? nil : missing.joined(separator: ", ")
    }()

    @Test("zstdcat prints exactly the archive's lines, and jq -c . parses every one",
          .enabled(if: tools == nil, "skipped: \(tools ?? "") not installed (apt-get install zstd jq)"))
    func zstdcatJq() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("s.bsz")
        // Small frames, so the file holds several frames and flushed blocks.
        let options = ArchiveWriterOptions(flushPolicy: FlushPolicy(flushBytes: 8 << 10, frameBytes: 48 << 10))
        let written = try Sessions.write(to: path, count: 800, options: options)
        let writer = try ArchiveWriter(path: dir.file("odd.bsz"), header: Sessions.header)
        for (i, c) in RoundTripTests.cases.enumerated() {
            try writer.append(time: Int64(i), direction: .webToHost, connection: "c", payload: c.1)
        }
        try writer.finish(endTime: 99)

        let (status, out, err) = try shell("zstdcat '\(path)'")
        #expect(status == 0, "\(err)")
        let ours = ArchiveLineReaderTests.lines(of: path).map { $0 + "\n" }.joined()
        #expect(out == Data(ours.utf8))

        let (jqStatus, jqOut, jqErr) = try shell("zstdcat '\(path)' | jq -c .")
        #expect(jqStatus == 0, "\(jqErr)")
        #expect(String(decoding: jqOut, as: UTF8.self).split(separator: "\n").count == written.count + 2)

        // The messages as jq sees them are the envelopes written (these are compact and
        // have no number jq would reformat).
        let (msgStatus, msgOut, _) = try shell("zstdcat '\(path)' | jq -c 'select(.msg) | .msg'")
        #expect(msgStatus == 0)
        #expect(String(decoding: msgOut, as: UTF8.self).split(separator: "\n").map(String.init)
                == written.map { String(decoding: $0.payload, as: UTF8.self) })

        // text and b64 lines are valid JSON for jq as well.
        let (oddStatus, oddOut, oddErr) = try shell("zstdcat '\(dir.file("odd.bsz"))' | jq -c '.text // .b64 // empty' | wc -l")
        #expect(oddStatus == 0, "\(oddErr)")
        let expectedOdd = RoundTripTests.cases.filter { $0.2 != .message }.count
        #expect(Int(String(decoding: oddOut, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) == expectedOdd)
    }

    @Test("zstd -t checks an archive's frames and checksums", .enabled(if: tools == nil, "skipped: zstd not installed"))
    func zstdTest() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("s.bsz")
        try Sessions.write(to: path, count: 50)
        let (status, _, err) = try shell("zstd -tq '\(path)'")
        #expect(status == 0, "\(err)")
    }
}
