import BridgeFuzz
import BridgeHost
import Foundation
import Testing

@Suite struct SeedTests {
    @Test func seedFolderHoldsTheJourneysAndEdgeCases() {
        let names = Corpus.files("seeds").map { $0.deletingPathExtension().lastPathComponent }
        #expect(names.count >= 15)
        for required in ["journey-passport", "journey-dual-document", "busy-document", "invalid-request-fields", "toggles-mid-flight"] {
            #expect(names.contains(required))
        }
    }

    @Test(arguments: Corpus.files("seeds"))
    func seedRunsCleanOnTheReferenceHost(_ url: URL) async {
        let c = Corpus.load(url)
        #expect(!c.input.steps.isEmpty)
        let target = InProcessTarget()
        var sink = FeatureSink()
        let trace = target.execute(c.input)
        var violations = target.checker().check(trace, features: &sink)
        for m in c.input.messages { violations += MessageOracles().check(m) }
        #expect(violations.isEmpty, "\(url.lastPathComponent): \(violations.map(\.description).joined(separator: "\n"))")
        #expect(trace.receivedCount > 0)
    }
}
