import BridgeTestSupport
import Foundation
import Testing

/// A host that never falls quiet (an event every 2 ms, as events are allowed) must not hold
/// a fuzz case, or the run, for good: after the last final answer a case waits at most 5 s
/// for quiet (`BlackBoxSettings.maxQuietWaitMs`), over stdio and through a WebView (where,
/// without that bound, the case never ended).
@Suite(.serialized, .enabled(if: webkitEnabled, "bridgescope-webkit is not built: make webkit"))
struct ChattyHostTests {
    static let host = #"""
        import json, sys, threading, time
        lock = threading.Lock()
        def out(obj):
            with lock:
                sys.stdout.write(json.dumps(obj) + "\n"); sys.stdout.flush()
        def now(): return int(time.time() * 1000)
        def chatter():
            n = 0
            while True:
                n += 1
                out({"version": "1.0", "correlationId": "tick-%d" % n, "type": "event", "timestamp": now(),
                     "payload": {"action": "host.tick", "data": {"n": n}}})
                time.sleep(0.002)
        threading.Thread(target=chatter, daemon=True).start()
        for line in sys.stdin:
            try: m = json.loads(line)
            except Exception: continue
            if isinstance(m, dict) and m.get("type") == "request" and isinstance(m.get("correlationId"), str) \
               and isinstance(m.get("payload"), dict) and isinstance(m["payload"].get("action"), str):
                out({"version": "1.0", "correlationId": m["correlationId"], "type": "response", "timestamp": now(),
                     "payload": {"action": m["payload"]["action"], "status": "unsupported",
                                 "error": {"code": "UNSUPPORTED_ACTION", "message": "no"}}})
        """#

    func script() throws -> String {
        let path = TestScratch.rootURL.appendingPathComponent("chatty-host-\(getpid()).py").path
        try Self.host.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `fuzz --runs 3` under `timeout 300`: the run ends, with its three cases. The host's
    /// answers leave out `error.recoverable` on purpose (BRG014): the finding is confirmed
    /// in a fresh run, whose quiet period (300 ms) the chatter never gives, so the bound is
    /// what ends that case (without it, through WebKit, the run never ended).
    func fuzz(_ target: String) throws -> (status: Int32, executions: Int, findings: String, text: String) {
        let findings = TestScratch.rootURL.appendingPathComponent("chatty-\(UUID().uuidString)").path
        let r = try runProcess(URL(fileURLWithPath: "/usr/bin/timeout"), ["300", ProjectPaths.binary.path, "fuzz", "--target", target,
            "--runs", "3", "--seed", "1", "--no-generated", "--response-timeout", "1500", "--findings", findings, "--format", "json"])
        let o = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? [:]
        let found = (o["findings"] as? [[String: Any]] ?? []).map { $0["signature"] as? String ?? "" }.joined(separator: ",")
        return (r.status, o["execs"] as? Int ?? -1, found, r.stdout.prefix(1500) + "\n" + r.stderr.suffix(1500))
    }

    @Test func aHostThatNeverFallsQuietEndsEachCaseOverStdio() throws {
        let r = try fuzz("stdio:python3 \(try script())")
        #expect(r.status != 124 && r.status != 2, "\(r.text)")
        #expect(r.executions > 3 && r.findings.contains("rules BRG014"), "a confirmed finding: \(r.text)")
    }

    @Test func aHostThatNeverFallsQuietEndsEachCaseThroughWebKit() throws {
        let targets = try WebViewTargets("chatty")
        defer { targets.stop() }
        try targets.startWebKit(host: "stdio:python3 \(try script())")
        let r = try fuzz(targets.webkit)
        #expect(r.status != 124 && r.status != 2, "the run did not end (status \(r.status)): \(r.text)")
        #expect(r.executions > 3 && r.findings.contains("rules BRG014"), "a confirmed finding: \(r.text)")
    }
}
