import BridgeTestSupport
import Foundation
import Testing

/// Issue 16, "output over input" and "write errors", run as a user runs the binary, from
/// a temporary directory: no writing subcommand writes over one of its inputs (same
/// path, hard link, symbolic link), a failed write exits 2 with the reason, and nothing
/// half-written is left behind.
@Suite(.serialized) struct OutputSafetyTests {
    let dir: URL
    let archive: String

    init() throws {
        dir = TestScratch.rootURL.appendingPathComponent("bridgescope-output-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        archive = dir.appendingPathComponent("s.bsz").path
        try FileManager.default.copyItem(atPath: ProjectPaths.root.appendingPathComponent("captures/happy-passport.bsz").path, toPath: archive)
        try FileManager.default.linkItem(atPath: archive, toPath: dir.appendingPathComponent("hard.bsz").path)
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("sym.bsz").path, withDestinationPath: "s.bsz")
    }

    func run(_ args: [String], stdout: String? = nil) throws -> (status: Int32, stderr: String) {
        let p = Process()
        p.executableURL = ProjectPaths.binary
        p.arguments = args
        p.currentDirectoryURL = dir
        let err = Pipe()
        p.standardError = err
        p.standardOutput = stdout.flatMap { FileHandle(forWritingAtPath: $0) } ?? FileHandle.nullDevice
        try p.run()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: e, as: UTF8.self))
    }

    @Test(arguments: ["s.bsz", "hard.bsz", "sym.bsz", "./s.bsz"])
    func noWritingSubcommandWritesOverItsInput(_ output: String) throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: archive))
        for args in [["analyze", "-o", output, "s.bsz"], ["analyze", "s.bsz", "--format", "html", "-o", output],
                     ["export", "s.bsz", "--jsonl", output], ["export", "s.bsz", "--har", output],
                     ["export", "s.bsz", "--pcapng", output], ["record", "-o", output, "--tap", "s.bsz"]] {
            let r = try run(args)
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("is also an input") && r.stderr.contains("write the output to another path"), "\(args): \(r.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: archive)) == before, "\(args) changed the input")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
        #expect(left.isEmpty, "temporary files left: \(left)")
    }

    @Test func writeErrorsExitTwoWithTheReason() throws {
        for (args, stdout) in [(["analyze", "s.bsz", "-o", "/dev/full"], nil), (["analyze", "s.bsz"], "/dev/full"),
                               (["rules"], "/dev/full"), (["validate", ProjectPaths.root.appendingPathComponent("captures/sample-broken.jsonl").path], "/dev/full"),
                               (["cat", "s.bsz"], "/dev/full"), (["export", "s.bsz", "--jsonl", "-"], "/dev/full")] as [([String], String?)] {
            let r = try run(args, stdout: stdout)
            #expect(r.status == 2, "\(args) > \(stdout ?? "-"): \(r.stderr)")
            #expect(r.stderr.contains("No space left on device"), "\(args): \(r.stderr)")
        }
    }

    @Test func aFinishedOutputReplacesTheOldOneAtOnce() throws {
        let out = dir.appendingPathComponent("report.json").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: out))
        let r = try run(["analyze", "s.bsz", "--format", "json", "-o", "report.json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8).hasPrefix("{"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }.isEmpty)
    }
}
