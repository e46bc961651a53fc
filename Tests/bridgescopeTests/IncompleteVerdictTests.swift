import BridgeTestSupport
import Foundation
import Testing

/// Issue 16: `analyze` on an archive cut in half printed PASS and exited 0. Now the
/// verdict is `incomplete` in every format and the exit status 1, unless the user
/// accepts what is there.
@Suite struct IncompleteVerdictTests {
    static func halfArchive() throws -> String {
        let source = ProjectPaths.root.appendingPathComponent("captures/busy-storm.bsz")
        let bytes = try Data(contentsOf: source)
        let path = TestScratch.rootURL.appendingPathComponent("half-\(UUID().uuidString).bsz").path
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aTruncatedArchiveIsIncompleteInEveryFormat() throws {
        let path = try Self.halfArchive()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = try runBridgescope(["analyze", path, "--fail-on", "never"])
        #expect(text.status == 1, "\(text.stdout)\(text.stderr)")
        #expect(text.stdout.contains("INCOMPLETE") && text.stdout.contains("--accept-incomplete"))
        #expect(!text.stdout.contains("PASS"))
        let json = try runBridgescope(["analyze", path, "--fail-on", "never", "--format", "json"])
        #expect(json.stdout.contains(#""verdict": "incomplete""#), "\(json.stdout.prefix(400))")
        let junit = try runBridgescope(["analyze", path, "--fail-on", "never", "--format", "junit"])
        #expect(junit.stdout.contains(#"name="complete input""#) && junit.stdout.contains(#"type="incomplete""#))
        let html = try runBridgescope(["analyze", path, "--fail-on", "never", "--format", "html"])
        #expect(html.stdout.contains(#"class="verdict incomplete""#))
        let accepted = try runBridgescope(["analyze", path, "--fail-on", "never", "--accept-incomplete"])
        #expect(accepted.status == 0)
        #expect(accepted.stdout.contains("PASS"))
    }
}

/// Issue 16: the default pacing must not make a real difference invisible.
@Suite struct ReplayDefaultPacingTests {
    @Test func asapSeesTheAnswerTheRecordingNeverHad() throws {
        let archive = ProjectPaths.root.appendingPathComponent("captures/nfc-never-answered.bsz").path
        for pace in [[], ["--pace", "recorded"]] {
            let r = try runBridgescope(["replay", archive] + pace)
            #expect(r.status == 1, "\(pace): \(r.stdout)\(r.stderr)")
            #expect(r.stdout.contains("extra-response nfc.read"), "\(pace): \(r.stdout)")
        }
    }
}
