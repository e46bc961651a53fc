import BridgeModel
import Testing

/// The checker's contract (issue 39): histories that differ only in a choice PROTOCOL.md §7
/// leaves open get the same verdict, and an illegal answer is caught whatever legal choices
/// surround it.
@Suite struct LegalChoiceTests {
    typealias H = HistoryBuilder

    /// One open question of §7, and the histories of a host answering it each legal way.
    struct Family: CustomTestStringConvertible, Sendable {
        var name: String
        var variants: [(String, @Sendable (inout H) -> Void)]
        var testDescription: String { name }
    }

    static let families: [Family] = [
        Family(name: "null member", variants: [
            ("absent", { h in h.send(H.request("n1", "nfc.read", data: "null")); h.answer("n1", "nfc.read") }),
            ("invalid", { h in h.send(H.request("n1", "nfc.read", data: "null")); h.answer("n1", "nfc.read", "error", code: "INVALID_REQUEST") }),
        ]),
        Family(name: "duplicate keys", variants: [
            ("first wins", { h in h.send(#"{"version":"1.0","correlationId":"a","correlationId":"b","type":"request","timestamp":1,"payload":{"action":"x.y"}}"#)
                h.answer("a", "x.y", "unsupported", code: "UNSUPPORTED_ACTION") }),
            ("last wins", { h in h.send(#"{"version":"1.0","correlationId":"a","correlationId":"b","type":"request","timestamp":1,"payload":{"action":"x.y"}}"#)
                h.answer("b", "x.y", "unsupported", code: "UNSUPPORTED_ACTION") }),
            ("invalid", { h in h.send(#"{"version":"1.0","correlationId":"a","correlationId":"b","type":"request","timestamp":1,"payload":{"action":"x.y"}}"#)
                h.answer("a", "x.y", "error", code: "INVALID_REQUEST") }),
        ]),
        Family(name: "reused open id", variants: [
            ("ignored", { h in h.send("r", "nfc.read"); h.send("r", "nfc.read"); h.answer("r", "nfc.read") }),
            ("rejected BUSY", { h in h.send("r", "nfc.read"); h.send("r", "nfc.read"); h.answer("r", "nfc.read", "error", code: "BUSY"); h.answer("r", "nfc.read") }),
            ("rejected INVALID_REQUEST", { h in h.send("r", "nfc.read"); h.send("r", "x.y"); h.answer("r", "x.y", "error", code: "INVALID_REQUEST"); h.answer("r", "nfc.read") }),
            ("served both", { h in h.send("r", "nfc.read"); h.send("r", "capability.query"); h.answer("r", "capability.query", data: H.query); h.answer("r", "nfc.read") }),
        ]),
        Family(name: "reused answered id", variants: [
            ("new request", { h in h.send("r", "nfc.read"); h.answer("r", "nfc.read"); h.send("r", "nfc.read"); h.answer("r", "nfc.read") }),
            ("rejected", { h in h.send("r", "nfc.read"); h.answer("r", "nfc.read"); h.send("r", "nfc.read"); h.answer("r", "nfc.read", "error", code: "INVALID_REQUEST") }),
        ]),
        Family(name: "version 1.x", variants: [
            ("accepted", { h in h.send(H.request("v", "nfc.read", version: "1.1")); h.answer("v", "nfc.read") }),
            ("mismatch", { h in h.send(H.request("v", "nfc.read", version: "1.1")); h.answer("v", "nfc.read", "error", code: "VERSION_MISMATCH") }),
        ]),
        Family(name: "unknown member", variants: [
            ("ignored", { h in h.send(H.request("u", "nfc.read", extra: #","extra":1"#)); h.answer("u", "nfc.read") }),
            ("invalid", { h in h.send(H.request("u", "nfc.read", extra: #","extra":1"#)); h.answer("u", "nfc.read", "error", code: "INVALID_REQUEST") }),
        ]),
        Family(name: "capture times", variants: [
            ("document first", { h in h.send("d", "camera.document.capture"); h.send("s", "camera.selfie.capture")
                h.answer("d", "camera.document.capture"); h.answer("s", "camera.selfie.capture") }),
            ("selfie first", { h in h.send("d", "camera.document.capture"); h.send("s", "camera.selfie.capture")
                h.answer("s", "camera.selfie.capture"); h.answer("d", "camera.document.capture") }),
        ]),
        Family(name: "one message at a time or not", variants: [
            ("concurrent reader: BUSY", { h in h.send("d1", "camera.document.capture"); h.send("d2", "camera.document.capture")
                h.answer("d2", "camera.document.capture", "error", code: "BUSY"); h.answer("d1", "camera.document.capture") }),
            ("serial reader: both served in order", { h in h.send("d1", "camera.document.capture"); h.send("d2", "camera.document.capture")
                h.answer("d1", "camera.document.capture"); h.answer("d2", "camera.document.capture") }),
        ]),
        Family(name: "malformed request", variants: [
            ("INVALID_REQUEST invalid", { h in h.send(#"{"version":"1.0","correlationId":"m","type":"request","payload":{"action":"nfc.read"}}"#)
                h.answer("m", "nfc.read", "error", code: "INVALID_REQUEST") }),
            ("routed", { h in h.send(#"{"version":"1.0","correlationId":"m","type":"request","payload":{"action":"nfc.read"}}"#)
                h.answer("m", "nfc.read") }),
        ]),
    ]

    /// Illegal answers, each with the signature every explanation must report.
    static let bugs: [(String, String, @Sendable (inout H) -> Void)] = [
        ("two final responses", "second-final-response nfc.read", { h in h.send("z", "nfc.read"); h.answer("z", "nfc.read"); h.answer("z", "nfc.read") }),
        ("another action", "wrong-action camera.selfie.capture", { h in h.send("z", "camera.selfie.capture"); h.answer("z", "camera.document.capture") }),
        ("no answer", "no-final-response invalid", { h in h.send("z", "caméra.capture") }),
        ("unsolicited", "unsolicited-response", { h in h.answer("nobody", "nfc.read") }),
        ("captures served out of order", "concurrent-captures camera.selfie", { h in
            h.send("s1", "camera.selfie.capture"); h.send("s2", "camera.selfie.capture")
            h.answer("s2", "camera.selfie.capture"); h.answer("s1", "camera.selfie.capture") }),
    ]

    @Test(arguments: families)
    func everyLegalChoiceIsExplained(_ family: Family) {
        for (name, build) in family.variants {
            var h = H()
            build(&h)
            let v = h.verdict()
            #expect(v.violation == nil, "\(family.name) / \(name): \(v.violation?.description ?? "undecided")")
        }
    }

    @Test(arguments: families)
    func anIllegalAnswerIsCaughtWhateverTheChoicesAround(_ family: Family) {
        for (name, build) in family.variants {
            for (bug, signature, inject) in Self.bugs {
                for before in [true, false] {
                    var h = H()
                    if before { inject(&h); build(&h) } else { build(&h); inject(&h) }
                    #expect(h.signature() == signature, "\(family.name) / \(name) + \(bug) (\(before ? "before" : "after")): \(h.verdict())")
                }
            }
        }
    }

    @Test func theStrictModelIsNarrower() {
        var h = H()
        h.send(H.request("n1", "nfc.read", data: "null"))
        h.answer("n1", "nfc.read", "error", code: "INVALID_REQUEST")
        #expect(h.choices() == [.nullMemberInvalid])
        #expect(h.signature(strict: true) == "valid-request-rejected nfc.read")
        var ours = H()
        ours.send(H.request("n1", "nfc.read", data: "null"))
        ours.answer("n1", "nfc.read")
        #expect(ours.choices() == [] && ours.choices(strict: true) == [])
    }

    @Test func theExplanationNamesTheChoicesItNeeded() {
        var h = H()
        h.send("r", "nfc.read"); h.send("r", "nfc.read")
        h.answer("r", "nfc.read", "error", code: "BUSY"); h.answer("r", "nfc.read")
        #expect(h.choices() == [.reusedOpenIdRejected])
    }
}
