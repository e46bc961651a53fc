import BridgeTestSupport
import Foundation
import Testing

/// `record --cdp` (through `record --launch`, as `tools/run-journey --record` uses it)
/// and `record --proxy` record the same journey at once: the two archives must hold the
/// same messages per direction, byte for byte, and analyze must say the same.
@Suite(.serialized, .enabled(if: chromiumPresent, "chromium is not installed: run tools/setup.sh --with-browser"))
struct CDPRecordingTests {
    let bin = ProjectPaths.root.appendingPathComponent(".build/debug/bridgescope")

    /// The message bytes of one direction, in order (`msg`, `text` or `b64` member onward).
    func messages(_ archive: String, _ dir: String) throws -> [String] {
        let r = try runProcess(bin, ["cat", archive, "--dir", dir, "--format", "jsonl"])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").filter { $0.contains("\"seq\"") && $0.contains("\"dir\"") }.map { line in
            for key in [",\"msg\":", ",\"text\":", ",\"b64\":"] {
                if let range = line.range(of: key) { return String(line[range.lowerBound...]) }
            }
            return String(line)
        }
    }

    /// Analyze's findings and counts, without what differs by nature between sources (times, connection ids, file names).
    func findings(_ archive: String) throws -> [String] {
        let r = try runProcess(bin, ["analyze", archive, "--format", "json", "--fail-on", "never"])
        #expect(r.status == 0, "\(r.stderr)")
        // Every finding, plus the session summary's counts (the first of each: the DevTools
        // archive also has a connection for the browser's first about:blank document).
        let lines = r.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let findings = lines.filter { l in ["\"rule\"", "\"slug\"", "\"severity\""].contains { l.hasPrefix($0) } }.sorted()
        let summary = ["\"verdict\"", "\"messages\"", "\"requests\"", "\"unanswered\"", "\"errors\"", "\"warnings\""]
            .compactMap { key in lines.first { $0.hasPrefix(key) } }
        return summary + findings
    }

    @Test(arguments: ["passport", "document-dual", "degradation"])
    func devToolsAndProxyRecordTheSameJourney(journey: String) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cdp-\(journey)-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for env in ["ios", "android"] {
            let cdp = dir.appendingPathComponent("\(env)-cdp.bsz").path
            let proxy = dir.appendingPathComponent("\(env)-proxy.bsz").path
            let r = try runProcess(ProjectPaths.root.appendingPathComponent("tools/run-journey"),
                                   [journey, "--env", env, "--record", cdp, "--proxy-record", proxy, "--quiet", "--timeout", "60"])
            #expect(r.status == 0, "\(journey) \(env): \(r.stdout)\n\(r.stderr)")
            let header = try runProcess(bin, ["cat", cdp, "--format", "jsonl"]).stdout
            #expect(header.hasPrefix("{\"bridgescope\":\"session\",\"formatVersion\":1,\"source\":\"cdp:http://127.0.0.1:"))
            #expect(header.contains("\"event\":\"open\""), "open events per frame")
            for direction in ["w2h", "h2w"] {
                let a = try messages(cdp, direction), b = try messages(proxy, direction)
                #expect(!a.isEmpty, "\(journey) \(env) \(direction): nothing recorded over DevTools")
                #expect(a == b, "\(journey) \(env) \(direction): DevTools \(a.count) vs proxy \(b.count) messages differ")
            }
            #expect(try findings(cdp) == findings(proxy), "\(journey) \(env): analyze differs")
        }
    }

    @Test func aMissingOrForeignEndpointIsAClearError() throws {
        // Nothing listens on port 1: refused, before any archive is written.
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("cdp-refused-\(getpid()).bsz").path
        let r = try runProcess(bin, ["record", "-o", out, "--cdp", "http://127.0.0.1:1", "--quiet"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("cannot connect to http://127.0.0.1:1"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let bad = try runProcess(bin, ["record", "-o", out, "--cdp", "ws://127.0.0.1:9222"])
        #expect(bad.status != 0 && bad.stderr.contains("--cdp takes the DevTools HTTP endpoint"), "\(bad.stderr)")
    }
}
