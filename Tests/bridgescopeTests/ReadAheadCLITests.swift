import BridgeTestSupport
import Foundation
import Testing

/// The commands read the same whether they read ahead or not, end to end: `analyze` with
/// `--jobs 2` (one session: decompression, reading and analysis on three threads) and
/// `--jobs 1`; `cat` and `export` with two cores and pinned to one (`taskset -c N`: the
/// CLI then reads on one thread), on an intact recording and on a copy with a flipped byte.
@Suite(.serialized) struct ReadAheadCLITests {
    @Test func oneThreadAndThreeGiveTheSameOutput() throws {
        let dir = TestScratch.rootURL.appendingPathComponent("read-ahead-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = ProjectPaths.root.appendingPathComponent("tools/bench/analyze/generate.py").path
        let log = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script, "--redacted", "--messages", "20000", "--parallel", "4"])
        #expect(log.status == 0)
        let intact = dir.appendingPathComponent("s.bsz").path
        let recorded = try runBridgescope(["record", "-o", intact, "--tap", "-", "--quiet"], stdin: log.stdout)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: intact))
        bytes[bytes.count / 2] ^= 0x10
        let damaged = dir.appendingPathComponent("d.bsz").path
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let taskset = URL(fileURLWithPath: "/usr/bin/taskset")
        // The first CPU this process may run on (a container's set may not hold CPU 0).
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let list = status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") }?.split(separator: ":").last ?? "0"
        let cpu = String(list.trimmingCharacters(in: .whitespaces).prefix { $0.isNumber })
        for path in [intact, damaged] {
            let three = try runBridgescope(["analyze", path, "--format", "json", "--jobs", "2"])
            let one = try runBridgescope(["analyze", path, "--format", "json", "--jobs", "1"])
            #expect(three.status == one.status && three.stdout == one.stdout && three.stderr == one.stderr, "\(path)")
            #expect(three.stdout.contains("\"messages\""))
            for command in [["cat", path], ["export", path, "--jsonl", "-"]] {
                let two = try runBridgescope(command)
                let pinned = try runProcess(taskset, ["-c", cpu, ProjectPaths.binary.path] + command)
                #expect(two.status == pinned.status && two.stdout == pinned.stdout && two.stderr == pinned.stderr, "\(command)")
                #expect(two.stdout.count > 1_000_000)
                if path == damaged { #expect(!two.stderr.isEmpty, "the damage is reported: \(command)") }
            }
        }
    }
}
