import BridgeTestSupport
import Foundation
import Testing

/// Issue 41, part 3: hosts behind a WebView as `replay` and `fuzz` targets, reached through
/// the page's own bridge over the debugging protocols (docs/WEBVIEW-TARGETS.md):
/// Chromium with the shim in front of the reference host (`cdp:`, both shapes) and real
/// WebKit (`bridgescope-webkit`, `webkit:`), with the stdio target against the same
/// host as the yardstick; and a host written apart from this project (the Python host),
/// whose planted bugs are found through real WebKit.
@Suite(.enabled(if: chromiumEnabled && webkitEnabled, "needs chromium and bridgescope-webkit (make webkit)"))
struct WebViewTargetTests {
    static let captures = ["busy-storm", "dual-picture-retake", "happy-passport", "malformed-traffic", "nfc-never-answered"]

    struct Replay {
        var status: Int32
        var sent = 0, planned = 0
        var errors: [String] = []
        var kinds: [String] = []
        var text = ""
    }

    func replay(_ capture: String, _ target: String) throws -> Replay {
        let r = try runBridgescope(["replay", "captures/\(capture).bsz", "--target", target, "--format", "json"], in: ProjectPaths.root)
        var out = Replay(status: r.status, text: r.stdout.prefix(3000) + "\n" + r.stderr.prefix(1000))
        guard let o = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else { return out }
        for c in o["connections"] as? [[String: Any]] ?? [] {
            out.sent += c["sent"] as? Int ?? 0
            out.planned += c["planned"] as? Int ?? 0
            if let e = c["error"] as? String { out.errors.append(e) }
            for d in c["divergences"] as? [[String: Any]] ?? [] {
                let kind = d["kind"] as? String ?? "?"
                if kind != "timing" { out.kinds.append(kind + " " + (d["action"] as? String ?? "")) }
            }
        }
        out.kinds.sort()
        return out
    }

    /// Every sample session through each WebView: everything is posted, nothing is lost,
    /// and the host is judged as the stdio target judges the same host. Android's string
    /// interface carries the bytes as they are: the same divergences as stdio. The iOS
    /// shape posts objects: a duplicate key keeps its last value (malformed-traffic's
    /// `nfc.read` with two actions), so its answer may differ, never a violation. The
    /// WebKit shell's host lives across documents: its one `host.ready` came before the
    /// replay attached, and round trips to a page are slower (busy-storm's BUSY answers
    /// depend on a 100 ms capture still running).
    @Test func everySampleSessionReplaysThroughEachWebView() throws {
        let targets = try WebViewTargets("replay")
        defer { targets.stop() }
        try targets.startChromium()
        try targets.startWebKit()
        for capture in Self.captures {
            let base = try replay(capture, "stdio:\(ProjectPaths.binary.path) host --stdio")
            #expect(base.errors.isEmpty && base.sent == base.planned, "\(capture) stdio: \(base.text)")
            for (target, shape) in [(targets.cdp + "#env=android", "android"), (targets.cdp + "#env=ios", "ios"), (targets.webkit, "webkit")] {
                let r = try replay(capture, target)
                #expect(r.status != 2 && r.errors.isEmpty, "\(capture) \(shape): \(r.text)")
                #expect(r.sent == r.planned && r.planned == base.planned, "\(capture) \(shape): sent \(r.sent)/\(r.planned)")
                #expect(!r.kinds.contains { $0.hasPrefix("protocol-violation") || $0.hasPrefix("missing-response") },
                        "\(capture) \(shape): \(r.kinds)\n\(r.text)")
                switch shape {
                case "android":
                    #expect(r.kinds == base.kinds, "\(capture) android: \(r.kinds) vs stdio \(base.kinds)")
                default:
                    var allowed = Set(base.kinds).union(["status-differs nfc.read"])
                    if shape == "webkit" { allowed.formUnion(["missing-event host.ready", "status-differs camera.document.capture"]) }
                    #expect(Set(r.kinds).isSubset(of: allowed), "\(capture) \(shape): \(r.kinds) vs stdio \(base.kinds)")
                }
            }
        }
    }

    /// A fuzz run through a WebView. Answers are given 5 s (stdio's tests give 1.5 s): a
    /// round trip through a page is slower, and in a full `make test` on 2 cores several
    /// WebKit and Chromium processes share them; a late answer there is a false
    /// `one-response` finding, which would also end a `--max-findings 1` run before the
    /// planted bug it looks for.
    func fuzz(_ target: String, runs: Int, extra: [String] = []) throws -> (status: Int32, findings: [String], runs: Int, text: String) {
        let findings = TestScratch.rootURL.appendingPathComponent("webview-fuzz-\(UUID().uuidString)").path
        let r = try runBridgescope(["fuzz", "--target", target, "--runs", String(runs), "--seed", "1", "--no-generated",
                                    "--response-timeout", "5000", "--findings", findings, "--format", "json"] + extra)
        let o = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? [:]
        let list = (o["findings"] as? [[String: Any]] ?? []).map { "\($0["oracle"] as? String ?? "") \($0["signature"] as? String ?? "")" }
        return (r.status, list, o["executions"] as? Int ?? o["runs"] as? Int ?? -1, r.stdout.prefix(2000) + "\n" + r.stderr.suffix(1500))
    }

    /// A fixed-seed fuzz run through each WebView in front of the reference host finds
    /// nothing: the oracles judge what crossed, in each shape.
    @Test func aFixedSeedFuzzRunThroughEachWebViewFindsNothingOnTheReferenceHost() throws {
        let targets = try WebViewTargets("fuzz")
        defer { targets.stop() }
        try targets.startChromium()
        try targets.startWebKit()
        for target in [targets.cdp + "#env=android", targets.cdp + "#env=ios", targets.webkit] {
            let r = try fuzz(target, runs: 40)
            #expect(r.status == 0 && r.findings.isEmpty, "\(target): \(r.findings)\n\(r.text)")
        }
    }

    /// The Python host (tools/hosts/python, written apart from the checker) inside real
    /// WebKit, fuzzed through the page's bridge: each planted bug is found, and its
    /// correct build gives nothing (runs as SecondHostFuzzTests has them over stdio). One
    /// case at a time (305 s; side by side, 120 s): a CI run failed one of these cases and
    /// did not say which, and with seven WebKit shells on 2 cores the correct build's case
    /// failed here once in eight loaded runs (status not 0). The likeliest cause, found
    /// after: an answer that came before its send was recorded was lost when its id was
    /// not freshened and an earlier case had sent it, or when two came under one id, a
    /// false `one-response` that only a fast answer shows (fixed: PageRecorderTests).
    @Test(.enabled(if: python3 != nil), .serialized, arguments: [("none", "", 150)] + pythonHostBugs)
    func thePythonHostsPlantedBugsAreFoundThroughWebKit(bug: String, oracle: String, runs: Int) throws {
        let host = ProjectPaths.root.appendingPathComponent("tools/hosts/python/bridge_host.py").path
        let env = (bug == "none" ? "" : "BRIDGE_HOST_BUG=\(bug) ") + "BRIDGE_HOST_DELAY_MS=\(bug == "no-busy" ? 600 : 50)"
        let targets = try WebViewTargets("python-\(bug)")
        defer { targets.stop() }
        try targets.startWebKit(host: "stdio:env \(env) \(python3!) \(host)")
        let r = try fuzz(targets.webkit, runs: runs, extra: bug == "none" ? [] : ["--max-findings", "1"])
        if bug == "none" {
            #expect(r.status == 0 && r.findings.isEmpty, "false alarms on a correct host: \(r.findings)\n\(r.text)")
        } else {
            #expect(r.findings.contains { $0.hasPrefix(oracle + " ") }, "\(bug): \(r.findings)\n\(r.text)")
            #expect(r.status == 1, "\(bug): \(r.text)")
        }
    }
}
