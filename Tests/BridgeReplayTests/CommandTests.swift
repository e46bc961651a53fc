import BridgeJSON
@testable import BridgeReplay
import BridgeTestSupport
import Foundation
import Testing

let binaryBuilt = FileManager.default.isExecutableFile(atPath: ProjectPaths.binary.path)
/// Chromium is installed, or `make test` requires it (BRIDGESCOPE_REQUIRE_BROWSER): the
/// browser tests then run and fail without it.
let chromiumEnabled = RequiredTools.chromiumEnabled

/// `bridgescope replay` as a user runs it: exit statuses, formats, usage errors.
@Suite(.enabled(if: binaryBuilt, "bridgescope is not built: run swift build first"))
struct CommandTests {
    func archive(_ session: ReplaySession = passportSession()) throws -> String {
        let path = temporaryDirectory() + "/passport.bsz"
        try writeArchive(session, to: path)
        return path
    }

    @Test func replayExitsZeroWithoutDivergencesAndOneWithThem() throws {
        let path = try archive()
        let clean = try runBridgescope(["replay", path])
        #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
        #expect(clean.stdout.hasSuffix("0 divergences\n"))
        let differs = try runBridgescope(["replay", path, "--target", "inproc:\(scenarioDirectory)/nfc-missing.json", "--format", "json"])
        #expect(differs.status == 1)
        let v = try JSONParser().parse(differs.stdout).value
        #expect(v["summary"]?["divergences"] == 2)
        let out = temporaryDirectory() + "/r.xml"
        let junit = try runBridgescope(["replay", path, "--target", "inproc:\(scenarioDirectory)/nfc-missing.json", "--format", "junit", "-o", out])
        #expect(junit.status == 1 && junit.stderr.contains("wrote \(out)"))
        #expect(try String(contentsOfFile: out, encoding: .utf8).contains("<failure type=\"status-differs\""))
        let ignored = try runBridgescope(["replay", path, "--target", "inproc:\(scenarioDirectory)/nfc-missing.json",
                                          "--ignore", "/payload/data", "--ignore", "/payload/status", "--ignore", "/payload/error"])
        #expect(ignored.status == 0, "\(ignored.stdout)")
        #expect(ignored.stdout.contains("ignored: /payload/data, /payload/status, /payload/error"))
    }

    @Test func usageErrorsExitTwoWithAMessage() throws {
        let path = try archive()
        let cases: [([String], String)] = [
            (["replay", path, "--target", "tcp:1"], "expected inproc[:SCENARIO], ws://HOST:PORT/bridge, stdio:'COMMAND', cdp:http://HOST:PORT or webkit:http://HOST:PORT"),
            (["replay", path, "--pace", "fast"], "--pace must be asap, recorded or xN"),
            (["replay", path, "--learn", "1"], "--learn needs at least 2 runs"),
            (["replay", path, "--ignore", "payload"], "is not a JSON pointer"),
            (["replay", path, "--listen", "127.0.0.1:1"], "go with --as-host"),
            (["replay", path, "--target", "inproc:no-such-scenario"], "no scenario named \"no-such-scenario\""),
            (["replay", "/nonexistent.bsz"], "/nonexistent.bsz"),
            (["replay", path, "--as-host", "--connection", "zz", "--listen", "127.0.0.1:0"], "has no connection \"zz\""),
        ]
        for (args, message) in cases {
            let r = try runBridgescope(args)
            #expect(r.status == 2, "\(args): \(r.stdout)\(r.stderr)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
    }

    @Test func aTargetThatIsDownExitsTwoAndSaysSo() throws {
        let path = try archive()
        let r = try runBridgescope(["replay", path, "--target", "ws://127.0.0.1:1/bridge", "--connect-timeout", "1"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("error: conn c1: cannot connect to ws://127.0.0.1:1/bridge"), "\(r.stderr)")
    }
}
