import BridgeArchive
import BridgeTestSupport
import Foundation
import Testing

let javaPresent = FileManager.default.isExecutableFile(atPath: "/usr/bin/javac") && javaPath != nil
let nodePath = ["/usr/bin/node", "/usr/local/bin/node"].first { FileManager.default.isExecutableFile(atPath: $0) }
let nodeAvailable = nodePath != nil
let javaPath = ["/usr/bin/java", "/usr/local/bin/java"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// Issue 19's proof: one message sequence (a passport journey with images, and hostile
/// strings) goes through the Swift, the Java and the JavaScript tap; the three logs import
/// to archives holding the same messages byte for byte, and `analyze` finds the same.
@Suite(.serialized, .enabled(if: javaPresent && nodeAvailable, "the Java and JavaScript taps need javac and node (tools/setup.sh installs them)"))
struct TapParityTests {
    /// One message: direction and its UTF-16 code units (unpaired surrogates allowed).
    typealias Message = (dir: String, units: [UInt16])

    static func text(_ s: String) -> [UInt16] { Array(s.utf16) }

    /// The sequence: a passport journey of the seeds' SDK, then hostile strings.
    static func sequence() -> [Message] {
        let image = String(repeating: "iVBORw0KGgoAAAANSUhEUgAA", count: 3_000)   // 72 KB of base64
        var k = 0
        func request(_ action: String, _ data: String = "{}") -> Message {
            k += 1
            return ("w2h", text(#"{"version":"1.0","correlationId":"r\#(k)","type":"request","timestamp":\#(1_764_050_000_000 + k),"payload":{"action":"\#(action)","data":\#(data)}}"#))
        }
        func response(_ action: String, _ data: String) -> Message {
            ("h2w", text(#"{"version":"1.0","correlationId":"r\#(k)","type":"response","timestamp":\#(1_764_050_000_500 + k),"payload":{"action":"\#(action)","status":"success","data":\#(data)}}"#))
        }
        var out: [Message] = [
            ("h2w", text(#"{"version":"1.0","type":"event","timestamp":1764050000000,"payload":{"action":"host.ready","data":{"hostVersion":"2.4.0"}}}"#)),
            request("capability.query"),
            response("capability.query", #"{"environment":"android","hostVersion":"2.4.0","capabilities":["camera.document.capture","camera.selfie.capture","nfc.read"]}"#),
            request("camera.document.capture", #"{"side":"front"}"#),
            response("camera.document.capture", #"{"imageData":"\#(image)","previewImageData":"\#(image.prefix(4000))","width":1920,"height":1080,"mimeType":"image/jpeg"}"#),
            request("camera.document.capture", #"{"side":"back"}"#),
            response("camera.document.capture", #"{ "imageData" : "\#(image)" , "width" : 1.92e3, "pages" : [ { "photo" : { "w" : 1 } }, { "photo" : null } ] }"#),
            request("nfc.read", #"{"mrz":"P<UTOERIKSSON<<ANNA<MARIA"}"#),
            response("nfc.read", #"{"chipRead":true,"dataGroups":["DG1","DG2"],"photo":"\u00e9\ud83d\ude00\/x","encryptedBlob":"QUJD"}"#),
            request("camera.selfie.capture"),
            response("camera.selfie.capture", #"{"imageData":"\#(image)","unencryptedBlob":"eQ=="}"#),
        ]
        // Hostile strings.
        out.append(("w2h", text(#"{"version":"1.0","correlationId":"x1","type":"request","timestamp":1,"payload":{"action":"a","data":{"s":""#) + [0xD800, 0x41, 0xDC00] + text(#""}}}"#)))
        out.append(("w2h", text(#"{"version":"1.0","correlationId":"x2","type":"request","timestamp":2,"payload":{"action":"a\#u{2028}b","data":{"imageData":"\#u{2029}"}}}"#)))
        out.append(("w2h", text(#"{"version":"1.0","correlationId":"x3","type":"request","timestamp":3,"payload":{"action":"big","data":{"note":""# + String(repeating: "é", count: 500_000) + #""}}}"#)))
        out.append(("w2h", text(#"{"version":"1.0","correlationId":"x4","payload":{"data":{"imageData":"QUJD"}}"#)))      // invalid: one brace short
        out.append(("w2h", text("undefined")))                                                                              // what Android posts for a missing argument
        out.append(("w2h", text("{\"a\":\"tab\there\",\"b\":\"\\ud800\"}")))                                              // raw control char, lone escape
        out.append(("h2w", text(#"{"version":"1.0","type":"event","timestamp":4,"payload":{"action":"journey.progress","data":{"step":3}}}"#)))
        return out
    }

    static func driverInput(_ messages: [Message]) -> String {
        messages.map { m in
            let bytes = m.units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            return "\(m.dir) webview-1 \(Data(bytes).base64EncodedString())"
        }.joined(separator: "\n") + "\n"
    }

    func temporaryDirectory(_ name: String) -> URL {
        let url = TestScratch.rootURL.appendingPathComponent("tap-parity-\(UUID().uuidString)/\(name)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs the three drivers on the sequence; returns each tap's log directory.
    func runTaps() throws -> [(String, URL)] {
        let input = Self.driverInput(Self.sequence())
        let root = ProjectPaths.root
        let swiftDir = temporaryDirectory("swift"), javaDir = temporaryDirectory("java"), jsDir = temporaryDirectory("js")
        let swift = try runProcess(ProjectPaths.binary.deletingLastPathComponent().appendingPathComponent("TapDriver"),
                                   ["--dir", swiftDir.path], stdin: input)
        #expect(swift.status == 0, "\(swift.stderr)")
        let classes = temporaryDirectory("classes")
        let build = try runProcess(URL(fileURLWithPath: "/bin/bash"), [root.appendingPathComponent("tools/taps/android/build.sh").path, classes.path])
        #expect(build.status == 0, "\(build.stdout)\(build.stderr)")
        let java = try runProcess(URL(fileURLWithPath: javaPath!), ["-cp", classes.path, "com.bridgescope.tap.TapDriver", "--dir", javaDir.path], stdin: input)
        #expect(java.status == 0, "\(java.stderr)")
        let js = try runProcess(URL(fileURLWithPath: nodePath!), [root.appendingPathComponent("tools/taps/js/tap-driver.js").path, "--dir", jsDir.path], stdin: input)
        #expect(js.status == 0, "\(js.stderr)")
        return [("swift", swiftDir), ("java", javaDir), ("js", jsDir)]
    }

    @Test func theThreeTapsRecordTheSameMessagesAndTheSameFindings() throws {
        var archives: [(String, [ArchiveRecord])] = []
        var findings: [String: String] = [:]
        for (name, dir) in try runTaps() {
            let archive = dir.deletingLastPathComponent().appendingPathComponent("\(name).bsz").path
            let record = try runBridgescope(["record", "-o", archive, "--tap", dir.path])
            // Exit 1: the invalid texts are in the archive as they are; nothing is lost.
            #expect(record.status == 0, "\(name): \(record.stderr)")
            let records = try ArchiveReader(path: archive).readAllRecords()
            archives.append((name, records))
            let report = try runBridgescope(["analyze", archive, "--format", "json", "--accept-incomplete"])
            findings[name] = Self.findingSummary(report.stdout)
        }
        let messages = Self.sequence()
        for (name, records) in archives {
            #expect(records.count == messages.count, "\(name): \(records.count) records")
            #expect(Set(records.map(\.connection)) == ["webview-1"])
            #expect(records.map(\.direction.rawValue) == messages.map(\.dir), "\(name)")
            let all = records.flatMap(\.payload)
            #expect(!String(decoding: all, as: UTF8.self).contains("iVBORw0KGgo"), "\(name): an image left the app")
        }
        guard archives.count == 3 else { return }
        for (name, records) in archives.dropFirst() {
            for (k, (a, b)) in zip(archives[0].1, records).enumerated() where a.payload != b.payload {
                Issue.record("message \(k + 1): swift and \(name) differ:\n\(String(decoding: a.payload.prefix(300), as: UTF8.self))\n\(String(decoding: b.payload.prefix(300), as: UTF8.self))")
            }
            if findings[name] != findings["swift"] {
                let a = (findings["swift"] ?? "").split(separator: "\n"), b = (findings[name] ?? "").split(separator: "\n")
                Issue.record("\(name)'s findings differ from swift's: only swift: \(a.filter { !b.contains($0) }); only \(name): \(b.filter { !a.contains($0) })")
            }
        }
        // The unpaired surrogates became U+FFFD; U+2028 stayed; the 1 MB string arrived whole.
        let hostile = archives[0].1[messages.count - 7]
        #expect(String(decoding: hostile.payload, as: UTF8.self).contains("\u{FFFD}A\u{FFFD}"))
        #expect(archives[0].1[messages.count - 5].payload.count > 1_000_000)
        #expect(!(findings["swift"] ?? "").isEmpty)
    }

    /// The findings of an analyze JSON report, without times and latencies.
    static func findingSummary(_ json: String) -> String {
        guard let data = json.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return "unreadable report" }
        let sessions = (object["sessions"] as? [[String: Any]]) ?? [object]
        let findings = sessions.flatMap { ($0["findings"] as? [[String: Any]]) ?? [] }
        // Durations depend on when each tap ran: "pending 214 ms" is compared as "pending N ms".
        let duration = try! NSRegularExpression(pattern: "[0-9]+(\\.[0-9]+)? ?(ms|s)\\b")
        return findings.map { f in
            let text = "\(f["rule"] ?? f["id"] ?? "?") \(f["record"] ?? "") \(f["message"] ?? "")"
            return duration.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "N ms")
        }.sorted().joined(separator: "\n")
    }
}

/// A tap writer killed with SIGKILL mid-stream leaves a log whose every complete line
/// imports (Swift and Java: the taps that write files themselves).
@Suite(.serialized, .enabled(if: javaPresent, "javac is missing"))
struct TapKillTests {
    func killMidStream(_ executable: String, _ arguments: [String], dir: URL) throws -> [TapLogParser.Entry] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments + ["--dir", dir.path]
        let input = Pipe()
        p.standardInput = input
        p.standardError = FileHandle.nullDevice
        try p.run()
        let line = Data(("w2h webview-1 " + Data(Array(#"{"version":"1.0","correlationId":"k","type":"request","timestamp":1764050000000,"payload":{"action":"a","data":{"imageData":"QUJD"}}}"#.utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }).base64EncodedString() + "\n").utf8)
        let writer = input.fileHandleForWriting
        // One second of writing once the tap has made its folder (a JVM on a loaded
        // machine can take longer than that to start; at most 30 s).
        let started = Date()
        var deadline = Date().addingTimeInterval(1.0)
        var sent = 0
        while Date() < deadline {
            writer.write(line)
            sent += 1
            if sent % 200 == 0 {
                Thread.sleep(forTimeInterval: 0.005)
                if !FileManager.default.fileExists(atPath: dir.path) && Date().timeIntervalSince(started) < 30 {
                    deadline = Date().addingTimeInterval(1.0)
                }
            }
        }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        try? writer.close()
        #expect(p.terminationReason == .uncaughtSignal)
        var entries: [TapLogParser.Entry] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() {
            let bytes = try Array(Data(contentsOf: dir.appendingPathComponent(name)))
            // Only complete lines: whatever follows the last LF was being written.
            let end = (bytes.lastIndex(of: 0x0A) ?? -1) + 1
            var parser = TapLogParser()
            entries += parser.feed(Array(bytes[0..<end])) + parser.finish()
        }
        return entries
    }

    func check(_ entries: [TapLogParser.Entry], _ name: String) {
        var messages = 0
        for entry in entries {
            switch entry {
            case .message(let m):
                messages += 1
                #expect(String(decoding: m.payload, as: UTF8.self).contains(#""imageData":{"redacted":true"#))
            case .error(let e): Issue.record("\(name): line \(e.line): \(e.reason)")
            case .event: break
            }
        }
        #expect(messages > 100, "\(name): only \(messages) messages reached the file before the kill")
    }

    @Test func swiftTap() throws {
        let dir = TestScratch.rootURL.appendingPathComponent("tap-kill-\(UUID().uuidString)")
        let driver = ProjectPaths.binary.deletingLastPathComponent().appendingPathComponent("TapDriver").path
        check(try killMidStream(driver, [], dir: dir), "swift")
    }

    @Test func javaTap() throws {
        let classes = TestScratch.rootURL.appendingPathComponent("tap-kill-classes-\(UUID().uuidString)")
        let build = try runProcess(URL(fileURLWithPath: "/bin/bash"), [ProjectPaths.root.appendingPathComponent("tools/taps/android/build.sh").path, classes.path])
        #expect(build.status == 0, "\(build.stderr)")
        let dir = TestScratch.rootURL.appendingPathComponent("tap-kill-\(UUID().uuidString)")
        check(try killMidStream(javaPath!, ["-cp", classes.path, "com.bridgescope.tap.TapDriver"], dir: dir), "java")
    }
}
