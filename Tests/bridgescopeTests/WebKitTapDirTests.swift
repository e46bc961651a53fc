import BridgeTestSupport
import Foundation
import Testing

/// `bridgescope-webkit --tap-dir`: the two taps placed and written as an app built on the
/// seeds' SDK places them (docs/TAP.md §5): the JavaScript tap through the bootstrap script
/// with a handler of its own, and the `BridgeTap` library at the host's delegate. Support's
/// `record --tap` of the two makes the archive `--record` makes, and `analyze` of it names
/// what WebKit did not deliver.
@Suite(.serialized, .enabled(if: webkitEnabled, "bridgescope-webkit is not built: make webkit"))
struct WebKitTapDirTests {
    func scratch(_ name: String) throws -> URL {
        let dir = TestScratch.rootURL.appendingPathComponent("webkit-tapdir-\(name)-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// `conn dir msg` of each record (no times: BridgeTap takes its own, in milliseconds).
    func messages(_ archive: String, conn: String) throws -> [String] {
        let cat = try runBridgescope(["cat", archive])
        return cat.stdout.split(separator: "\n").compactMap { line -> String? in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  o["conn"] as? String == conn, let dir = o["dir"] as? String, let msg = o["msg"] else { return nil }
            let bytes = (try? JSONSerialization.data(withJSONObject: msg, options: [.sortedKeys])) ?? Data()
            return dir + " " + String(decoding: bytes, as: UTF8.self)
        }
    }

    /// The SDK app's files, imported, hold what `--record` of the same run holds: the page's
    /// tap line for line, and every message the host received.
    @Test func theAppsTapFilesImportAsTheShellsOwnRecording() throws {
        let dir = try scratch("passport")
        let archive = dir.appendingPathComponent("shell.bsz").path
        let taps = dir.appendingPathComponent("taps").path
        let r = try runEngineJourney("passport", engine: "webkit", ["--record", archive, "--tap-dir", taps, "--quiet"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        let nativeFiles = try FileManager.default.contentsOfDirectory(atPath: taps + "/native")
        #expect(!nativeFiles.isEmpty)
        let header = try String(contentsOfFile: taps + "/native/" + nativeFiles.sorted()[0], encoding: .utf8)
        #expect(header.contains("\"tap\":\"swift\""), "\(header.prefix(300))")   // written by BridgeTap

        let imported = dir.appendingPathComponent("imported.bsz").path
        let rec = try runBridgescope(["record", "-o", imported, "--tap", taps + "/web.ndjson", "--tap", taps + "/native"])
        #expect(rec.status == 0, "\(rec.stderr)")
        let web = try messages(imported, conn: "webview-1@web")
        #expect(web.count >= 8)
        #expect(web == (try messages(archive, conn: "webview-1@web")))
        // The delegate sees what the host received, not what it sent.
        let native = try messages(imported, conn: "webview-1@native")
        #expect(native == (try messages(archive, conn: "webview-1@native")).filter { $0.hasPrefix("w2h ") })
        #expect(native.count == web.filter { $0.hasPrefix("w2h ") }.count)
        let a = try runBridgescope(["analyze", imported])
        #expect(!a.stdout.contains("BRG30"), "\(a.stdout)")
    }

    /// The journey that hangs on every iPhone, recorded the SDK app's way: `analyze` names
    /// the request WebKit never delivered, and why.
    @Test func theAppsTapFilesShowThePostWebKitDidNotDeliver() throws {
        let dir = try scratch("unclonable")
        let taps = dir.appendingPathComponent("taps").path
        let r = try runEngineJourney("unclonable", engine: "webkit", ["--tap-dir", taps, "--quiet"], timeout: 5)
        #expect(r.status == 3, "\(r.stdout)\n\(r.stderr)")
        let imported = dir.appendingPathComponent("imported.bsz").path
        let rec = try runBridgescope(["record", "-o", imported, "--tap", taps + "/web.ndjson", "--tap", taps + "/native"])
        #expect(rec.status == 0, "\(rec.stderr)")
        let a = try runBridgescope(["analyze", imported])
        #expect(a.stdout.contains("BRG300 bridge-not-delivered ×1: the page posted request camera.document.capture"), "\(a.stdout)")
        #expect(a.stdout.contains("a function"), "\(a.stdout)")
    }

    /// A tap folder that cannot be made is a set-up error (2), named, before the page loads.
    @Test func anUnwritableTapFolderIsASetUpError() throws {
        let r = try runShell(["about:blank", "--tap-dir", "/proc/bridgescope-no-such/taps", "--quiet", "--timeout", "5"])
        #expect(r.status == 2, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stderr.contains("/proc/bridgescope-no-such/taps"), "\(r.stderr)")
    }
}
