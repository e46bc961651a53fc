import BridgeTestSupport
import Foundation
import Testing

/// Issue 16, "formats by content" and "messages that say what to do", as a user runs the
/// binary from a temporary directory: every reader judges its input by content, says what
/// a wrong one is and which command reads it, reads `-` and a FIFO once; unknown names and
/// bad option values exit 2 with the subcommand's usage.
@Suite(.serialized) struct InputJudgingTests {
    let dir: URL

    init() throws {
        dir = TestScratch.rootURL.appendingPathComponent("bridgescope-inputs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let captures = ProjectPaths.root.appendingPathComponent("captures")
        // Names that lie about the content.
        try FileManager.default.copyItem(at: captures.appendingPathComponent("happy-passport.bsz"), to: dir.appendingPathComponent("archive.txt"))
        try FileManager.default.copyItem(at: captures.appendingPathComponent("sample-passport.jsonl"), to: dir.appendingPathComponent("envelopes.ndjson"))
        try FileManager.default.copyItem(at: ProjectPaths.fixture("pcaps-websocket/chrome_ws.pcap"), to: dir.appendingPathComponent("capture.bsz"))
        _ = try runBridgescope(["export", "archive.txt", "--jsonl", "taplog.data"], in: dir)
    }

    func run(_ args: [String], stdin: String? = nil) throws -> ProcessResult {
        try runBridgescope(args, stdin: stdin, in: dir)
    }

    @Test func analyzeReadsAnArchiveAndATapLogWhateverTheirNames() throws {
        for input in ["archive.txt", "taplog.data"] {
            let r = try run(["analyze", input])
            #expect(r.status == 0, "\(input): \(r.stderr)")
            #expect(r.stdout.contains("14 messages"), "\(input): \(r.stdout.prefix(300))")
        }
    }

    @Test(arguments: [("capture.bsz", "packet capture", "record -o session.bsz --read capture.bsz"),
                      ("envelopes.ndjson", "bare envelopes", "validate envelopes.ndjson")])
    func aWrongInputIsNamedWithTheCommandThatReadsIt(_ input: String, _ what: String, _ next: String) throws {
        for sub in [["analyze"], ["cat"], ["export", "--jsonl", "out.jsonl"]] {
            var args = [sub[0], input]
            args += sub.dropFirst()
            let r = try run(args)
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(r.stderr.hasPrefix("error: ") && r.stderr.contains(input), "\(args): \(r.stderr)")
            #expect(r.stderr.contains(what) && r.stderr.contains(next), "\(args): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.jsonl").path))
    }

    @Test func recordTapRefusesWhatIsNotATapLogAndLeavesNoArchive() throws {
        for input in ["archive.txt", "capture.bsz", "envelopes.ndjson", "."] {
            let r = try run(["record", "-o", "o.bsz", "--tap", input])
            #expect(r.status == 2, "\(input): \(r.stderr)")
            #expect(r.stderr.contains("not a tap log") || r.stderr.contains("is a directory"), "\(input): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("o.bsz").path), "\(input) left o.bsz")
        }
    }

    @Test func aDirectoryIsSearchedByContentAndWhatIsSkippedIsSaid() throws {
        let r = try run(["analyze", "."])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("archive.txt") && r.stdout.contains("taplog.data"))
        #expect(r.stderr.contains("note: skipped ./capture.bsz: it is a packet capture"), "\(r.stderr)")
        #expect(r.stderr.contains("note: skipped ./envelopes.ndjson"), "\(r.stderr)")
        let empty = dir.appendingPathComponent("empty-dir")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let none = try run(["analyze", "empty-dir"])
        #expect(none.status == 2 && none.stderr.contains("no session archives or tap logs found in empty-dir"), "\(none.stderr)")
    }

    @Test func standardInputIsReadByAnalyzeCatAndValidate() throws {
        let tap = try String(contentsOf: dir.appendingPathComponent("taplog.data"), encoding: .utf8)
        let a = try run(["analyze", "-"], stdin: tap)
        #expect(a.status == 0 && a.stdout.contains("14 messages"), "\(a.stderr)")
        let v = try run(["validate", "-"], stdin: try String(contentsOf: dir.appendingPathComponent("envelopes.ndjson"), encoding: .utf8))
        #expect(v.status == 0 && v.stderr.contains("11 message(s)"), "\(v.stderr)")
    }

    @Test func aFIFOIsReadOnce() throws {
        let fifo = dir.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let archive = try Data(contentsOf: dir.appendingPathComponent("archive.txt"))
        let writer = Thread {
            if let h = FileHandle(forWritingAtPath: fifo) {
                h.write(archive)
                try? h.close()
            }
        }
        writer.start()
        let r = try run(["analyze", "fifo"])
        #expect(r.status == 0 && r.stdout.contains("14 messages"), "\(r.stderr)")
    }

    @Test func validateChecksTheMessagesOfATapLogAndAnArchive() throws {
        let archive = try run(["validate", ProjectPaths.root.appendingPathComponent("captures/malformed-traffic.bsz").path])
        #expect(archive.status == 1)
        #expect(archive.stdout.contains(":record 10:") && archive.stdout.contains("BRG002 duplicate-key"), "\(archive.stdout)")
        let tap = try run(["validate", "taplog.data"])
        #expect(tap.status == 0 && tap.stderr.contains("validated the message of each line"), "\(tap.stderr)")
        let pcap = try run(["validate", "capture.bsz"])
        #expect(pcap.status == 2 && pcap.stderr.contains("record -o session.bsz --read capture.bsz"), "\(pcap.stderr)")
    }

    @Test(arguments: [
        (["help", "nosuch"], "no subcommand named 'nosuch'"),
        (["cat", "--type", "reponse", "archive.txt"], "--type must be request, response or event"),
        (["analyze", "--timeout", "nfc.read=abc", "archive.txt"], "Usage: bridgescope analyze"),
        (["nosuch"], "error: Unexpected argument 'nosuch'"),
    ])
    func unknownNamesAndBadValuesExitTwoWithTheRightUsage(_ args: [String], _ expected: String) throws {
        let r = try run(args)
        #expect(r.status == 2, "\(args): \(r.stderr)")
        #expect(r.stderr.contains(expected), "\(args): \(r.stderr)")
        #expect(!r.stderr.contains("Error:"), "\(args): one spelling, error:")
    }

    @Test func aRefusedConnectionIsSaidInWords() throws {
        let r = try run(["replay", "archive.txt", "--target", "ws://127.0.0.1:1/bridge"])
        #expect(r.stderr.contains("connection refused"), "\(r.stderr)")
        #expect(!r.stderr.contains("SingleConnectionFailure"), "\(r.stderr)")
    }
}

/// Issue 16, "resources found wherever the binary runs": scenario names resolve from a
/// temporary directory, through the executable's checkout.
@Suite struct ResourceLookupTests {
    @Test func scenarioNamesResolveOutsideTheRepository() throws {
        let dir = TestScratch.rootURL
        let archive = ProjectPaths.root.appendingPathComponent("captures/happy-passport.bsz").path
        let ok = try runBridgescope(["replay", archive, "--target", "inproc:nfc-missing"], in: dir)
        #expect(ok.status == 1, "\(ok.stderr)")
        #expect(ok.stdout.contains("divergence") && !ok.stderr.contains("no scenario named"), "\(ok.stdout) \(ok.stderr)")
        let bad = try runBridgescope(["replay", archive, "--target", "inproc:nosuch"], in: dir)
        #expect(bad.status == 2 && bad.stderr.contains("known: ") && bad.stderr.contains("nfc-missing"), "\(bad.stderr)")
        let host = try runBridgescope(["host", "--stdio", "--scenario", "nfc-missing"], stdin: "", in: dir)
        #expect(host.status == 0 && host.stdout.contains("host.ready"), "\(host.stderr)")
    }
}
