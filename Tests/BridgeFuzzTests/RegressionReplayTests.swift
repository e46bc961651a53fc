import BridgeFuzz
import Foundation
import Testing

/// Every finding ever made stays fixed: each file in corpus/regressions is replayed on
/// every `swift test` run against the in-process host with every oracle (a crash case
/// that still crashes takes the test process down, which fails the run loudly).
@Suite struct RegressionReplayTests {
    @Test func regressionFolderExists() {
        #expect(FileManager.default.fileExists(atPath: Corpus.root.appendingPathComponent("regressions").path))
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
