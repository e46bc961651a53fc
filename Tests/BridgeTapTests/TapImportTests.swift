import BridgeArchive
import BridgeTestSupport
import Foundation
import Testing

/// `record --tap` over a field tap's files (docs/TAP.md §4): headers, missing and
/// out-of-order files as gap events, drop and unrecordable lines, bad headers and bad
/// folders.
struct TapImportTests {
    func folder(_ files: [String: String]) throws -> URL {
        let dir = TestScratch.rootURL.appendingPathComponent("tap-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: dir.appendingPathComponent(name)) }
        return dir
    }

    func header(_ seq: Int, first: Bool) -> String {
        #"{"t":1764050000000,"event":"tap","tap":"swift","version":1,"seq":\#(seq),"first":\#(first),"redacted":true}"# + "\n"
    }

    let message = #"{"t":1764050000001,"dir":"w2h","conn":"w","text":"{}"}"# + "\n"

    /// Imports `paths` and returns the archive's events (kind, reason) and status.
    func importing(_ paths: [String]) throws -> (events: [(String, String)], records: Int, status: Int32, stderr: String) {
        let out = TestScratch.rootURL.appendingPathComponent("tap-import-\(UUID().uuidString).bsz").path
        let r = try runBridgescope(["record", "-o", out] + paths.flatMap { ["--tap", $0] })
        guard FileManager.default.fileExists(atPath: out) else { return ([], 0, r.status, r.stderr) }
        var events: [(String, String)] = []
        var records = 0
        for item in try ArchiveReader(path: out) {
            if case .event(let e) = item { events.append((e.kind.rawValue, e.reason ?? "")) }
            if case .record = item { records += 1 }
        }
        return (events, records, r.status, r.stderr)
    }

    @Test func continuousFilesFromTheFirstImportWithoutGaps() throws {
        let dir = try folder(["b-000001.ndjson": header(1, first: true) + message,
                              "b-000002.ndjson": header(2, first: false) + message])
        let r = try importing([dir.path])
        #expect(r.records == 2)
        #expect(r.events.map(\.0) == ["tap", "tap"])
        #expect(r.events[0].1 == "swift tap, file 1 (its first), redacted")
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test func missingFilesBecomeGaps() throws {
        // The first file read is not the tap's first; file 4 is missing between 3 and 5.
        let dir = try folder(["b-000003.ndjson": header(3, first: false) + message,
                              "b-000005.ndjson": header(5, first: false) + message])
        let r = try importing([dir.path])
        let gaps = r.events.filter { $0.0 == "gap" }.map(\.1)
        #expect(gaps.count == 2)
        #expect(gaps.first?.contains("before file 3") == true)
        #expect(gaps.last?.contains("tap files 4 are missing") == true)
        #expect(r.records == 2)
        #expect(r.status == 1, "a gap is a loss: exit 1")
    }

    @Test func filesGivenOutOfOrderAreSaidToBe() throws {
        let dir = try folder(["a.ndjson": header(2, first: false) + message, "b.ndjson": header(1, first: true) + message])
        let r = try importing([dir.appendingPathComponent("a.ndjson").path, dir.appendingPathComponent("b.ndjson").path])
        #expect(r.events.contains { $0.0 == "gap" && $0.1.contains("out of order") })
    }

    @Test func badHeadersDropsAndUnrecordableLinesAreEvents() throws {
        let dir = try folder(["x.ndjson": header(1, first: true)
            + #"{"t":1764050000002,"event":"tap","tap":"swift"}"# + "\n"                                   // no seq
            + #"{"t":1764050000003,"event":"tap","seq":-4}"# + "\n"                                         // negative seq
            + #"{"t":1764050000004,"event":"drop","conn":"w","count":7,"bytes":700,"reason":"tap queue full"}"# + "\n"
            + #"{"t":1764050000005,"dir":"w2h","conn":"w","unrecordable":"a Date is not a JSON value"}"# + "\n"
            + #"{"t":1764050000006,"event":"tap","seq":"#   // truncated last line
        ])
        let r = try importing([dir.appendingPathComponent("x.ndjson").path])
        let errors = r.events.filter { $0.0 == "error" }.map(\.1)
        #expect(errors.filter { $0.contains("seq") }.count == 2, "\(errors)")
        #expect(errors.contains { $0.contains("could not serialize this message: a Date is not a JSON value") })
        #expect(errors.count == 4, "the truncated last line too: \(errors)")
        #expect(r.events.contains { $0.0 == "drop" })
        #expect(r.status == 1)
    }

    @Test func foldersWithoutLogsAndStandardInputAmongFilesAreRefused() throws {
        let empty = try folder(["notes.txt": "hello"])
        let a = try importing([empty.path])
        #expect(a.status == 2 && a.stderr.contains("holds no tap logs"), "\(a.stderr)")
        let b = try importing(["-", empty.appendingPathComponent("notes.txt").path])
        #expect(b.status == 2 && b.stderr.contains("must be the only tap log"), "\(b.stderr)")
    }
}
