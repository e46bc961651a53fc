import BridgeTestSupport
import Foundation
import Testing

let python3 = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// The bugs planted in tools/hosts/python/bridge_host.py (BRIDGE_HOST_BUG), the oracle
/// that finds each, and the runs it needs at seed 1.
let pythonHostBugs: [(String, String, Int)] = [
    ("crash-on-long-id", "crash", 150),
    ("double-response", "one-response", 40),
    ("success-and-error", "one-response", 40),
    ("no-busy", "one-capture-per-slot", 40),
    ("wrong-id", "one-response", 40),
    ("hang-on-nfc", "one-response", 40),
]

/// Issue 22: the black-box fuzzer judged against a host written apart from this project
/// (tools/hosts/python/bridge_host.py, other legal choices where PROTOCOL.md §7 leaves
/// them open): a fixed-seed run finds nothing on the correct host, and finds each bug
/// planted in it, under bounded budgets.
@Suite(.enabled(if: python3 != nil, "python3 is missing (tools/setup.sh installs it)"))
struct SecondHostFuzzTests {
    let host = ProjectPaths.root.appendingPathComponent("tools/hosts/python/bridge_host.py").path

    /// Runs `fuzz` against the Python host with `bug` planted; returns the JSON summary's
    /// findings as (oracle, signature, rule) and the wall time.
    /// `delayMs`: the host's capture latency (its default is 50 ms; finding two captures
    /// served at once over the wire needs one longer than 250 ms, see docs/FUZZING.md).
    /// `--no-generated`: what a fixed seed finds in so many runs depends on the cases it
    /// starts from, and `make fuzz-nightly` leaves machine-local cases in
    /// `corpus/generated/` (ignored by git), after which the long-id bug took more than
    /// 150 runs.
    func fuzz(bug: String?, runs: Int, delayMs: Int = 50, extra: [String] = []) throws
        -> (findings: [(String, String, String)], seconds: Double, status: Int32, unconfirmed: Int, processes: Int) {
        let findings = TestScratch.rootURL.appendingPathComponent("second-host-\(UUID().uuidString)").path
        var env = bug.map { "BRIDGE_HOST_BUG=\($0) " } ?? ""
        env += "BRIDGE_HOST_DELAY_MS=\(delayMs)"
        let command = "stdio:env \(env) \(python3!) \(host)"
        let started = Date()
        let r = try runBridgescope(["fuzz", "--target", command, "--runs", String(runs), "--seed", "1", "--no-generated",
                                    "--response-timeout", "1500", "--findings", findings, "--format", "json"] + extra)
        let seconds = Date().timeIntervalSince(started)
        guard let data = r.stdout.data(using: .utf8),
              let summary = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            Issue.record("no JSON summary: \(r.stdout.prefix(500)) \(r.stderr.prefix(500))")
            return ([], seconds, r.status, -1, -1)
        }
        let list = (summary["findings"] as? [[String: Any]] ?? []).map {
            ($0["oracle"] as? String ?? "", $0["signature"] as? String ?? "", $0["rule"] as? String ?? "")
        }
        return (list, seconds, r.status, summary["unconfirmed"] as? Int ?? -1, summary["hostProcesses"] as? Int ?? -1)
    }

    @Test func theCorrectHostGivesNoFinding() throws {
        let r = try fuzz(bug: nil, runs: 150)
        #expect(r.findings.isEmpty, "false alarms on a correct host: \(r.findings)")
        #expect(r.status == 0)
        // Late answers to earlier cases (50 ms captures) are leftovers, told apart by the
        // fresh ids of later cases: they neither cost a confirmation run nor a restart.
        #expect(r.unconfirmed <= 2, "suspected violations that a fresh process did not confirm: \(r.unconfirmed)")
        #expect(r.processes <= 4, "host processes: \(r.processes)")
    }

    /// The runs each bug needs at seed 1 (the seeds hold a correlationId of 125
    /// characters since issue 39, among the hostile strings).
    @Test(arguments: pythonHostBugs)
    func eachPlantedBugIsFound(bug: String, oracle: String, runs: Int) throws {
        // A crash leaves its case's request unanswered too: stop once both are written.
        let r = try fuzz(bug: bug, runs: runs, delayMs: bug == "no-busy" ? 600 : 50,
                         extra: bug == "crash-on-long-id" ? ["--max-findings", "2"] : [])
        #expect(r.findings.contains { $0.0 == oracle }, "\(bug): \(r.findings)")
        #expect(r.findings.allSatisfy { $0.2.hasPrefix("PROTOCOL.md §") }, "every finding names its rule: \(r.findings)")
        #expect(r.status == 1)
    }

    /// `--jobs` runs side by side against a black-box host: the runs are split, the
    /// reports merged, a planted bug found once.
    @Test func jobsSplitTheRunsAndMergeTheFindings() throws {
        let r = try fuzz(bug: "double-response", runs: 40, extra: ["--jobs", "2"])
        #expect(r.findings.filter { $0.1.hasPrefix("second-final-response") }.count == 1, "\(r.findings)")
        #expect(Set(r.findings.map { "\($0.0) \($0.1)" }).count == r.findings.count, "a finding merged twice: \(r.findings)")
        #expect(r.status == 1)
    }

    /// `--time` bounds the whole run, minimization included, whatever the host does
    /// (here it never answers nfc.read and ignores SIGTERM).
    @Test func theTimeBudgetHoldsAgainstAHangingHost() throws {
        let findings = TestScratch.rootURL.appendingPathComponent("second-host-\(UUID().uuidString)").path
        let started = Date()
        let r = try runBridgescope(["fuzz", "--target", "stdio:env BRIDGE_HOST_BUG=hang-on-nfc \(python3!) \(host)",
                                    "--time", "8s", "--seed", "2", "--no-generated", "--findings", findings,
                                    "--format", "json"])
        let seconds = Date().timeIntervalSince(started)
        #expect(seconds < 8 + 5, "the run took \(seconds) s for --time 8s")
        #expect(r.status == 0 || r.status == 1, "\(r.stderr.prefix(500))")
        // A case the time stopped while nfc.read was inside its 30 s deadline is not
        // judged, and the summary says so.
        let summary = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect((summary?["cutShort"] as? Int ?? 0) >= 1, "\(r.stdout.prefix(500))")
    }
}
