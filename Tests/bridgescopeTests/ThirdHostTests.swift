import BridgeTestSupport
import Foundation
import Testing

let node = RequiredTools.node

/// Issue 39: a third host, written in JavaScript from PROTOCOL.md alone
/// (tools/hosts/node), with §7 choices unlike both other hosts (strict types, answers to
/// reused ids, capture times that vary per request) and two reading variants: the
/// fuzzer and the conformance suite find nothing on it, and find each bug planted in it.
@Suite(.serialized, .enabled(if: RequiredTools.nodeEnabled, "node is missing (tools/setup.sh installs it)"))
struct ThirdHostTests {
    let host = ProjectPaths.root.appendingPathComponent("tools/hosts/node/bridge_host.js").path

    func command(bug: String? = nil, mode: String = "concurrent") -> String {
        "stdio:env BRIDGE_HOST_MODE=\(mode)\(bug.map { " BRIDGE_HOST_BUG=\($0)" } ?? "") \(node ?? "node") \(host)"
    }

    func json(_ r: ProcessResult) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    /// `responseTimeout`: the planted bugs are judged with 3 s (a hang shows sooner); the
    /// correct host with PROTOCOL.md §2's own timeouts, since the serial variant answers the
    /// last of 120 queued nfc.read requests some 13 s after it was sent, which is legal.
    func fuzz(bug: String?, mode: String = "concurrent", seconds: Int, responseTimeout: Int? = 3000, maxFindings: Int? = nil) throws
        -> (findings: [String], elapsed: Double, status: Int32) {
        let findings = TestScratch.rootURL.appendingPathComponent("third-host-\(UUID().uuidString)").path
        let started = Date()
        let r = try runBridgescope(["fuzz", "--target", command(bug: bug, mode: mode), "--time", "\(seconds)s", "--seed", "1",
                                    "--no-generated", "--findings", findings, "--format", "json"]
                                    + (responseTimeout.map { ["--response-timeout", String($0)] } ?? [])
                                    + (maxFindings.map { ["--max-findings", String($0)] } ?? []))
        let list = (json(r)["findings"] as? [[String: Any]] ?? []).map { "\($0["oracle"] ?? "") \($0["signature"] ?? "")" }
        return (list, Date().timeIntervalSince(started), r.status)
    }

    @Test(arguments: ["concurrent", "serial"])
    func theCorrectHostGivesNoFuzzFinding(mode: String) throws {
        let r = try fuzz(bug: nil, mode: mode, seconds: 15, responseTimeout: nil)
        #expect(r.findings.isEmpty, "false alarms on a correct host (\(mode)): \(r.findings)")
        #expect(r.status == 0)
    }

    @Test(arguments: ["concurrent", "serial"])
    func theCorrectHostPassesEveryConformanceCase(mode: String) throws {
        let r = try runBridgescope(["conform", "--target", command(mode: mode), "--response-timeout", "5000", "--format", "json"])
        let cases = (json(r)["hosts"] as? [[String: Any]])?.first?["cases"] as? [[String: Any]] ?? []
        let failed = cases.filter { $0["verdict"] as? String == "fail" || $0["verdict"] as? String == "undecided" }
        #expect(cases.count >= 40)
        #expect(failed.isEmpty, "\(mode): \(failed.map { "\($0["id"] ?? "") \($0["reason"] ?? $0["detail"] ?? "")" })")
        #expect(r.status == 0)
        // Its §7 choices are named, not hidden.
        let choices = Set(cases.flatMap { $0["choices"] as? [String] ?? [] })
        #expect(choices.contains("null-member:invalid") && choices.contains("reused-open-id:rejected"), "\(choices.sorted())")
    }

    /// Each planted bug: found by fuzzing within 30 s (the run stops at its first finding,
    /// `--max-findings 1`: 9 to 22 s here, minimization and the fresh-process confirmation
    /// included), and by a failing conformance case.
    @Test(arguments: [
        ("no-busy", "one-capture-per-slot concurrent-captures", "2.12"),
        ("non-ascii-silent", "one-response no-final-response", "4.7"),
        ("double-final", "one-response second-final-response", "3.3"),
        ("wrong-action", "one-response wrong-action", "2.2"),
        ("crash", "crash target-failed", "4.10"),
        ("hang", "one-response no-final-response", "2.10"),
    ])
    func eachPlantedBugIsFound(bug: String, finding: String, conformanceCase: String) throws {
        let f = try fuzz(bug: bug, seconds: 30, maxFindings: 1)
        #expect(f.findings.contains { $0.hasPrefix(finding) }, "\(bug): fuzzing found \(f.findings)")
        #expect(f.elapsed < 30 + 10, "\(bug): the run took \(f.elapsed) s")
        let r = try runBridgescope(["conform", "--target", command(bug: bug), "--cases", conformanceCase,
                                    "--response-timeout", "3000", "--format", "json"])
        let verdicts = ((json(r)["hosts"] as? [[String: Any]])?.first?["cases"] as? [[String: Any]] ?? []).map { $0["verdict"] as? String ?? "" }
        #expect(verdicts == ["fail"], "\(bug): case \(conformanceCase) gave \(verdicts) \(r.stderr.prefix(300))")
        #expect(r.status == 1)
    }

    /// `replay` against another host judges it by the protocol model too: the correct host's
    /// different data and choices are divergences from the recording, never protocol
    /// violations; a planted bug is one.
    @Test func replayJudgesTheTargetByTheProtocol() throws {
        let archive = ProjectPaths.root.appendingPathComponent("captures/happy-passport.bsz").path
        func violations(_ bug: String?) throws -> [String] {
            let r = try runBridgescope(["replay", archive, "--target", command(bug: bug), "--format", "json"])
            let connections = json(r)["connections"] as? [[String: Any]] ?? []
            return connections.flatMap { ($0["divergences"] as? [[String: Any]] ?? []) }
                .filter { $0["kind"] as? String == "protocol-violation" }.map { $0["actual"] as? String ?? "" }
        }
        #expect(try violations(nil) == [])
        #expect(try violations("wrong-action") == ["wrong-action camera.selfie.capture"])
        #expect(try violations("double-final") == ["second-final-response nfc.read"])
    }
}
