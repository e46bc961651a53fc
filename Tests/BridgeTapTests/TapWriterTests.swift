import BridgeArchive
import BridgeTap
import BridgeTestSupport
import Foundation
import Testing

/// The Swift tap's writer (docs/TAP.md §3): files and their headers, rotation and the
/// newest N kept, drop accounting, failures reported and never thrown or blocking.
struct TapWriterTests {
    func temporaryDirectory() -> String {
        let path = TestScratch.temporaryPath + "tap-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func files(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".ndjson") }.sorted()
    }

    func entries(_ path: String) throws -> [TapLogParser.Entry] {
        var parser = TapLogParser()
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        return parser.feed(bytes) + parser.finish()
    }

    func message(_ k: Int, image: String = "") -> String {
        #"{"version":"1.0","correlationId":"r\#(k)","type":"request","timestamp":1700000000000,"payload":{"action":"camera.document.capture","data":{"side":"front","imageData":"\#(image)"}}}"#
    }

    @Test func linesReachTheFileRedactedAfterTheHeaderWithoutClose() throws {
        let dir = temporaryDirectory()
        var configuration = TapConfiguration(directory: dir)
        configuration.writeIntervalMilliseconds = 20
        let tap = BridgeTap(configuration)
        let web = tap.connection("webview-1")
        web.webToHost(message(1, image: "QUJD"))
        web.webToHost(["payload": ["data": ["photo": "eA=="]], "type": "event"] as [String: Any])
        web.hostToWeb(#"{"type":"response","correlationId":"r1"}"#)
        // Within the write interval (plus scheduling), without flush or close.
        var found: [TapLogParser.Entry] = []
        for _ in 0..<200 where found.count < 4 {
            Thread.sleep(forTimeInterval: 0.01)
            found = (try? entries(dir + "/bridge-000001.ndjson")) ?? []
        }
        #expect(found.count == 4)
        guard case .event(let header)? = found.first else { Issue.record("no header"); return }
        #expect(header.fileSequence == 1 && header.firstFile)
        guard found.count == 4, case .message(let m1) = found[1], case .message(let m2) = found[2], case .message(let m3) = found[3] else { return }
        #expect(m1.connection == "webview-1" && m1.direction == .webToHost)
        #expect(String(decoding: m1.payload, as: UTF8.self) == String(decoding: TapRedactor().redact(Array(message(1, image: "QUJD").utf8)).bytes, as: UTF8.self))
        // A dictionary body is serialized with sorted keys, then redacted.
        #expect(String(decoding: m2.payload, as: UTF8.self).hasPrefix(#"{"payload":{"data":{"photo":{"redacted":true,"#))
        #expect(m3.direction == .hostToWeb)
        tap.close()
    }

    @Test func filesRotateAtTheCapAndTheNewestAreKept() throws {
        let dir = temporaryDirectory()
        var configuration = TapConfiguration(directory: dir)
        configuration.maxFileBytes = 4_000
        configuration.maxFiles = 3
        let tap = BridgeTap(configuration)
        let web = tap.connection("w")
        for k in 0..<200 { web.webToHost(message(k)) }
        tap.close()
        let names = files(dir)
        #expect(names.count == 3)
        var seqs: [Int] = []
        var messages = 0
        for name in names {
            let size = try FileManager.default.attributesOfItem(atPath: dir + "/" + name)[.size] as? Int ?? 0
            #expect(size <= 4_000)
            let e = try entries(dir + "/" + name)
            guard case .event(let h)? = e.first, let s = h.fileSequence else { Issue.record("\(name) has no header"); continue }
            seqs.append(s)
            messages += e.dropFirst().count
        }
        #expect(seqs == Array((seqs.first ?? 0)..<((seqs.first ?? 0) + 3)) && (seqs.first ?? 0) > 1)
        #expect(names.last == "bridge-\(String(format: "%06d", seqs.last ?? 0)).ndjson")
        // The newest messages are the ones kept: the last file ends with r199.
        if let last = names.last, case .message(let m)? = try entries(dir + "/" + last).last {
            #expect(String(decoding: m.payload, as: UTF8.self).contains(#""r199""#))
        }
        #expect(messages > 0 && messages < 200)
        // A second tap on the same directory continues the numbering.
        let again = BridgeTap(configuration)
        again.connection("w").hostToWeb("{}")
        again.close()
        #expect(files(dir).last == "bridge-\(String(format: "%06d", (seqs.last ?? 0) + 1)).ndjson")
    }

    @Test func aFullQueueIsCountedAndWrittenAsOneDropLine() throws {
        let dir = temporaryDirectory()
        var configuration = TapConfiguration(directory: dir)
        configuration.maxQueueLines = 10
        configuration.writeIntervalMilliseconds = 250
        let tap = BridgeTap(configuration)
        let web = tap.connection("webview-1")
        for k in 0..<1_000 { web.webToHost(message(k)) }
        tap.flush()
        web.webToHost(message(1_000))
        tap.close()
        var stored = 0, dropped = 0
        for name in files(dir) {
            for entry in try entries(dir + "/" + name) {
                switch entry {
                case .message: stored += 1
                case .event(let e) where e.event.kind == .drop:
                    dropped += e.event.count ?? 0
                    #expect(e.event.reason?.hasPrefix("tap queue full: ") == true)
                    #expect(e.event.connection == "webview-1")
                default: break
                }
            }
        }
        #expect(stored + dropped == 1_001)
        #expect(dropped > 0)
    }

    @Test func anOverlongMessageIsDroppedWithItsReason() throws {
        let dir = temporaryDirectory()
        var configuration = TapConfiguration(directory: dir)
        configuration.maxLineBytes = 1_000
        let tap = BridgeTap(configuration)
        tap.connection("w").hostToWeb(String(repeating: "x", count: 2_000))
        tap.connection("w").hostToWeb("{}")
        tap.close()
        let all = try entries(dir + "/bridge-000001.ndjson")
        #expect(all.contains { if case .event(let e) = $0 { e.event.kind == .drop && e.event.reason?.contains("larger than the limit of 1000 bytes") == true } else { false } })
    }

    @Test func anUnwritableDirectoryIsReportedNotThrownNorBlocking() {
        let file = TestScratch.temporaryPath + "tap-file-\(UUID().uuidString)"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let errors = ErrorBox()
        var configuration = TapConfiguration(directory: file + "/sub")
        configuration.writeIntervalMilliseconds = 10
        configuration.onError = { errors.append($0.message) }
        let tap = BridgeTap(configuration)
        for k in 0..<100 { tap.connection("w").webToHost(message(k)) }
        tap.flush()
        tap.close()
        #expect(errors.all.count >= 1)
        #expect(Set(errors.all).count == errors.all.count, "each failure once")
        #expect(errors.all.first?.contains(file) == true)
    }

    /// A write that fails midway (here: a file-size limit, `ulimit -f`, which fails
    /// `write(2)` as a full disk does) is reported once, leaves no partial line, and the
    /// caller goes on.
    @Test func aFailingWriteIsReportedAndLeavesNoPartialLine() throws {
        let dir = temporaryDirectory()
        let driver = ProjectPaths.binary.deletingLastPathComponent().appendingPathComponent("TapDriver").path
        let line = "w2h w " + Data(Array(message(1, image: String(repeating: "A", count: 300)).utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }).base64EncodedString()
        let input = Array(repeating: line, count: 200).joined(separator: "\n") + "\n"
        let r = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "trap '' XFSZ; ulimit -f 16; exec \"$0\" --dir \"$1\"", driver, dir], stdin: input)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("tap error: cannot write") && r.stderr.contains("File too large"), "\(r.stderr)")
        let text = try String(contentsOfFile: dir + "/bridge-000001.ndjson", encoding: .utf8)
        // Reported again only after a write succeeded: a failed batch is cut back, and a
        // smaller batch may then fit (how the lines are batched depends on the writer
        // thread's timing), so at most once plus once per line written after it.
        let reports = r.stderr.components(separatedBy: "tap error:").count - 1
        let lines = text.split(separator: "\n").count
        #expect(reports >= 1 && reports <= 1 + lines, "reported \(reports) times for \(lines) lines: \(r.stderr)")
        #expect(text.hasSuffix("\n"), "a partial line was left")
        for entry in try entries(dir + "/bridge-000001.ndjson") {
            if case .error(let e) = entry { Issue.record("line \(e.line): \(e.reason)") }
        }
    }
}

/// Collects errors from the writer thread.
final class ErrorBox: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [String] = []
    func append(_ e: String) { lock.lock(); errors.append(e); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return errors }
}
