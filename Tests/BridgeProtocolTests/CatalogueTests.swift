import BridgeProtocol
import BridgeTestSupport
import Foundation
import Testing

struct CatalogueTests {
    @Test func everyRequiredSlugIsInTheCatalogue() {
        let required = ["malformed-json", "duplicate-key", "not-an-object", "missing-field", "wrong-field-type",
                        "unsupported-version", "unknown-type", "invalid-status", "status-on-request",
                        "status-on-event", "missing-status", "error-payload-missing", "error-payload-unexpected",
                        "malformed-error-payload", "empty-correlation-id", "timestamp-in-seconds",
                        "timestamp-invalid", "wrong-direction", "too-large", "too-deep"]
        for slug in required { #expect(RuleCatalogue.standard.rule(slug: slug) != nil, "\(slug)") }
    }

    @Test func idsAreWellFormedAndPerMessageRulesStayInTheirRange() {
        for r in RuleCatalogue.messageRules {
            #expect(r.id.rawValue.hasPrefix("BRG0"))
            #expect(r.id.rawValue.count == 6)
            #expect(!r.explanation.isEmpty && !r.source.isEmpty && !r.summary.isEmpty)
        }
    }

    @Test func committedRulesMarkdownMatchesTheTable() throws {
        let path = ProjectPaths.root.appendingPathComponent("docs/RULES.md")
        let committed = try String(contentsOf: path, encoding: .utf8)
        #expect(committed == RuleCatalogue.standard.markdown(),
                "docs/RULES.md is stale: run `make rules-doc` (bridgescope rules --markdown > docs/RULES.md)")
    }
}
