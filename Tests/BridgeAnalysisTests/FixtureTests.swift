import BridgeAnalysis
import BridgeProtocol
import Foundation
import Testing

/// Every fixture session gives exactly the findings its header expects: a trigger
/// fixture fires its rule, a clean one fires nothing.
struct FixtureTests {
    @Test(arguments: Fixtures.names)
    func fixtureGivesExactlyTheExpectedFindings(_ name: String) throws {
        let expected = try Fixtures.expectation(name)
        let report = try Fixtures.analyze(name)
        #expect(report.countsBySlug == expected, "\(name): \(report.findings.map(\.description))")
        // Every stored finding names a record, except end-of-session findings about a
        // connection as a whole.
        for f in report.findings where f.rule != .journeyIncomplete {
            #expect(!f.records.isEmpty, "\(name): \(f.slug) has no record number")
        }
    }

    @Test func everySessionRuleHasATriggerAndACleanFixture() throws {
        var triggered: Set<String> = []
        var quietIn: [String: [String]] = [:]
        for name in Fixtures.names {
            let expected = try Fixtures.expectation(name)
            triggered.formUnion(expected.keys)
            for r in RuleCatalogue.sessionRules where expected[r.slug] == nil {
                quietIn[r.slug, default: []].append(name)
            }
        }
        for rule in RuleCatalogue.sessionRules {
            #expect(triggered.contains(rule.slug), "no fixture triggers \(rule.slug)")
            let quiet = quietIn[rule.slug] ?? []
            #expect(quiet.contains { $0.hasPrefix(rule.slug + ".clean") || $0 == "happy-id-card.ndjson" },
                    "no clean fixture for \(rule.slug)")
        }
        #expect(Fixtures.names.contains("happy-id-card.ndjson"))
    }

    @Test func sessionRulesUseTheirIdRangesAndTheIssueSlugs() {
        let slugs = ["unanswered-request", "late-response", "unknown-correlation", "duplicate-response",
                     "reused-correlation-id", "action-mismatch", "busy-violation", "capture-before-query",
                     "unsupported-capability-requested", "too-many-pending", "timestamp-regression",
                     "journey-incomplete", "dual-capture-incomplete", "capture-gap", "host-silent",
                     "missing-host-ready", "host-reinit", "response-not-consumed", "retry-after-fatal",
                     "capture-despite-denied-permission", "backgrounded-during-capture", "busy-retry-storm",
                     "stub-capture-result"]
        for slug in slugs {
            let rule = RuleCatalogue.standard.rule(slug: slug)
            #expect(rule != nil, "\(slug) missing")
            guard let rule else { continue }
            let n = Int(rule.id.rawValue.dropFirst(3)) ?? 0
            if slug.hasPrefix("capture-gap") { #expect((200...249).contains(n)) } else { #expect((100...199).contains(n), "\(slug)") }
            #expect(rule.explanation.contains("Check") || rule.explanation.contains("check"), "\(slug): explanation is not a runbook line")
        }
        for r in RuleCatalogue.sessionRules {
            #expect(r.id.rawValue.count == 6 && !r.summary.isEmpty && !r.source.isEmpty)
        }
    }
}
