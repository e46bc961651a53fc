import BridgeFuzz
import Foundation
import BridgeTestSupport
import Testing

/// Every finding ever made stays fixed: each file in corpus/regressions is replayed on
/// every `swift test` run against the in-process host with every oracle (a crash case
/// that still crashes takes the test process down, which fails the run loudly).
@Suite struct RegressionReplayTests {
    @Test func regressionFolderExists() {
        #expect(FileManager.default.fileExists(atPath: Corpus.root.appendingPathComponent("regressions").path))
    }

    /// libFuzzer's WebSocket target's findings (frame sequences), replayed through the same
    /// harness in a child process with a time limit, since such findings are often hangs.
    @Test func websocketRegressionsStayFixed() throws {
        var files: [URL] = []
        for folder in ["regressions/websocket", "libfuzzer-seeds/websocket"] {
            let dir = Corpus.root.appendingPathComponent(folder)
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted() where name.hasSuffix(".bin") {
                files.append(dir.appendingPathComponent(name))
            }
        }
        #expect(files.count >= 8)
        let r = try runWithTimeout(ProjectPaths.binary, ["fuzz", "--harness", "websocket", "--reproduce-all"] + files.map(\.path), seconds: 30)
        #expect(!r.timedOut, "a WebSocket regression hangs again")
        #expect(r.status == 0, "\(r.output)")
    }

    /// libFuzzer's archive reader findings (raw `.bsz` bytes) and the sample archives, the same way.
    @Test func archiveRegressionsStayFixed() throws {
        var files: [String] = []
        let dir = Corpus.root.appendingPathComponent("regressions/archive")
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted() where name.hasSuffix(".bin") {
            files.append(dir.appendingPathComponent(name).path)
        }
        let captures = Corpus.root.deletingLastPathComponent().appendingPathComponent("captures")
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: captures.path)) ?? []).sorted() where name.hasSuffix(".bsz") {
            files.append(captures.appendingPathComponent(name).path)
        }
        #expect(!files.isEmpty)
        let r = try runWithTimeout(ProjectPaths.binary, ["fuzz", "--harness", "archive", "--reproduce-all"] + files, seconds: 60)
        #expect(!r.timedOut, "an archive regression hangs again")
        #expect(r.status == 0, "\(r.output)")
    }

    @Test(arguments: Corpus.files("regressions"))
    func regressionStaysFixed(_ url: URL) async throws {
        let c = Corpus.load(url)
        #expect(c.oracle != nil, "\(url.lastPathComponent) has no header naming its oracle")
        let outcome = try await FuzzReproducer.replay(c)
        #expect(outcome.violations.isEmpty,
                "\(url.lastPathComponent) fails again: \(outcome.violations.map(\.description).joined(separator: "\n"))")
    }
}
