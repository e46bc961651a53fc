import BridgeAnalysis
import BridgeProtocol
import Testing

/// Two-sided recordings (`<id>@web`, `<id>@native`): the per-connection rules read the
/// web side only, and each message is paired with its twin across the bridge
/// (BRG300–BRG303, docs/ANALYZER.md).
struct BridgeCrossingTests {
    static let function = #"{"delivered":false,"changes":["payload.data.cb: a function; WebKit does not deliver a message that holds one"]}"#

    /// Everything crosses (the native side's keys in another order): nothing reported,
    /// and the report is the one-sided report of the web side: same requests, latency,
    /// journey; the `@native` side is no connection of its own.
    @Test func everythingCrossesAndNothingIsCountedTwice() throws {
        var s = TwoSidedSession()
        s.happyJourney()
        let two = try s.analyze()
        let one = try Fixtures.analyze(text: s.webSideOnly(as: "c1"))
        #expect(two.ruleCounts.isEmpty, "\(two.findings.map(\.description))")
        #expect(one.ruleCounts.isEmpty)
        #expect(two.summary.requests == 3 && two.summary.requests == one.summary.requests)
        #expect(two.summary.unanswered == 0)
        #expect(two.connections.map(\.id) == ["v1@web"])
        #expect(two.latency.map(\.action) == one.latency.map(\.action))
        #expect(two.latency.map(\.count) == one.latency.map(\.count))
        #expect(two.latency.map(\.count).reduce(0, +) == 3)
        #expect(two.connections[0].steps.map(\.action) == one.connections[0].steps.map(\.action))
        #expect(two.connections[0].webMessages == one.connections[0].webMessages)
        #expect(two.connections[0].hostMessages == one.connections[0].hostMessages)
        #expect(two.summary.messages == 2 * one.summary.messages)
    }

    /// A post holding a function: the tap's crossing event says WebKit will not deliver
    /// it, there is no native record, and the finding names the request and why.
    @Test func aFunctionHoldingPostIsNotDelivered() throws {
        var s = TwoSidedSession()
        s.hostReady()
        let post = s.send("w2h", "request", "n-1", "nfc.read", crossing: Self.function, receiver: false)
        let r = try s.analyze()
        #expect(r.crossingCounts == ["bridge-not-delivered": 1])
        let f = try #require(r.findings("bridge-not-delivered").first)
        #expect(f.correlationId == "n-1")
        #expect(f.records == [post.sent!])
        #expect(f.connection == "v1@web")
        #expect(f.severity == .error)
        #expect(f.message == "the page posted request nfc.read (id n-1, record \(post.sent!)) and the host never received it: WebKit does not deliver it (payload.data.cb: a function; WebKit does not deliver a message that holds one)")
        // The request stays open for the web side, and its journey step names both rules.
        #expect(r.countsBySlug["unanswered-request"] == 1)
        let step = try #require(r.connections[0].steps.first { $0.correlationId == "n-1" })
        #expect(step.findings.contains(.bridgeNotDelivered) && step.findings.contains(.unansweredRequest))
        // The crossing event is a journey step of its own, saying why.
        let note = try #require(r.connections[0].steps.first { $0.action == "capture.crossing" })
        #expect(note.detail == "not delivered: payload.data.cb: a function; WebKit does not deliver a message that holds one")
    }

    /// A native tap that sees only what the page posted (an app on the seeds' SDK taps
    /// `bridgeHost(_:didReceive:)`, which never sees the host's sends): host → page is not
    /// compared, so the page's receipts are no `bridge-unposted-receipt`, however many.
    @Test func aNativeTapThatSeesNoSendsJudgesOnlyPosts() throws {
        var s = TwoSidedSession()
        s.send("h2w", "event", "ios-event-1", "host.ready", data: #"{"hostVersion":"1.0"}"#, sender: false)
        for i in 0..<300 {
            s.send("w2h", "request", "q-\(i)", "capability.query")
            s.send("h2w", "response", "q-\(i)", "capability.query", status: "success", sender: false)
        }
        let r = try s.analyze()
        #expect(r.crossingCounts.isEmpty, "\(r.findings.map(\.description).prefix(3))")
        // A post that never arrived is still found.
        var t = TwoSidedSession()
        t.send("w2h", "event", "e-1", "journey.started")
        t.send("w2h", "request", "n-1", "nfc.read", receiver: false)
        t.send("h2w", "response", "other", "capability.query", status: "success", sender: false)
        #expect(try t.analyze().crossingCounts == ["bridge-not-delivered": 1])
    }

    /// A post with no receipt and no crossing note: not delivered, no reason given.
    @Test func aPostWithoutReceiptOrNote() throws {
        var s = TwoSidedSession()
        s.hostReady()
        let post = s.send("w2h", "event", "web-1", "journey.started", data: #"{"journey":"id"}"#, receiver: false)
        let f = try #require(try s.analyze().findings("bridge-not-delivered").first)
        #expect(f.message == "the page posted event journey.started (id web-1, record \(post.sent!)) and the host never received it")
    }

    /// A BigInt member dropped in crossing: the crossing event's changes are the finding.
    @Test func aDroppedBigIntIsAChangedMember() throws {
        var s = TwoSidedSession()
        s.hostReady()
        let post = s.send("w2h", "request", "d-1", "camera.document.capture", data: #"{"side":"front"}"#,
                          crossing: #"{"delivered":true,"changes":["payload.data.n: a BigInt, dropped"]}"#)
        let r = try s.analyze()
        #expect(r.crossingCounts == ["bridge-member-changed": 1])
        let f = try #require(r.findings("bridge-member-changed").first)
        #expect(f.records == [post.sent!, post.received!])
        #expect(f.correlationId == "d-1")
        #expect(f.message == "request camera.document.capture (id d-1, records \(post.sent!) and \(post.received!)) changed crossing from the page to the host: payload.data.n: a BigInt, dropped (noted by the page's tap at record \(post.sent!))")
    }

    /// No crossing note, but the native record differs: both values are named.
    @Test func aSilentDifferenceIsFoundByComparing() throws {
        var s = TwoSidedSession()
        s.hostReady()
        let post = s.send("w2h", "request", "d-1", "camera.document.capture", data: #"{"n":12345678901234567890,"q":0.1,"side":"front"}"#,
                          receivedData: #"{"n":12345678901234567000,"q":1e-1,"side":"front"}"#)
        let f = try #require(try s.analyze().findings("bridge-member-changed").first)
        #expect(f.message == "request camera.document.capture (id d-1, records \(post.sent!) and \(post.received!)) changed crossing from the page to the host: payload.data.n: 12345678901234567890 on the web side, 12345678901234567000 on the native side")
    }

    /// The host received what the page never posted.
    @Test func aReceiptWithoutPostIsUnposted() throws {
        var s = TwoSidedSession()
        s.happyJourney()
        let receipt = s.send("w2h", "request", "x-9", "camera.selfie.capture", sender: false)
        let r = try s.analyze()
        #expect(r.crossingCounts == ["bridge-unposted-receipt": 1])
        let f = try #require(r.findings("bridge-unposted-receipt").first)
        #expect(f.records == [receipt.received!])
        #expect(f.connection == "v1@native")
        #expect(f.message == "the host received request camera.selfie.capture (id x-9, record \(receipt.received!) on v1@native) that the page never posted on v1@web")
        // Not a request of the journey: the web side never sent it.
        #expect(r.summary.requests == 3 && r.countsBySlug["unanswered-request"] == nil)
    }

    /// The same id twice: pairs in order of occurrence, so only the second pair differs.
    @Test func aReusedIdPairsInOrder() throws {
        var s = TwoSidedSession()
        s.hostReady()
        s.send("w2h", "event", "same", "journey.step", data: #"{"n":1}"#)
        let second = s.send("w2h", "event", "same", "journey.step", data: #"{"n":2}"#, receivedData: #"{"n":3}"#)
        s.send("w2h", "event", "same", "journey.step", data: #"{"n":4}"#)
        let r = try s.analyze()
        #expect(r.crossingCounts == ["bridge-member-changed": 1])
        #expect(r.findings("bridge-member-changed").first?.records == [second.sent!, second.received!])
        #expect(r.findings("bridge-member-changed").first?.message.hasSuffix("payload.data.n: 2 on the web side, 3 on the native side") == true)
    }

    /// The native side's record first in the recording: paired all the same, and a
    /// finding names the web record first.
    @Test func theNativeSideMayComeFirst() throws {
        var s = TwoSidedSession()
        s.hostReady()
        s.send("w2h", "request", "q-1", "capability.query", receiverFirst: true)
        s.send("h2w", "response", "q-1", "capability.query", data: #"{"capabilities":{}}"#, status: "success", receiverFirst: true)
        let post = s.send("w2h", "event", "web-2", "journey.step", data: #"{"a":1}"#, receivedData: #"{"a":2}"#, receiverFirst: true)
        #expect(post.received! < post.sent!)
        let r = try s.analyze()
        #expect(r.crossingCounts == ["bridge-member-changed": 1])
        #expect(r.findings("bridge-member-changed").first?.records == [post.sent!, post.received!])
        #expect(r.summary.unanswered == 0)
    }

    /// Host to page: a message the host sent that the page never received, and one the
    /// page received that the host never sent, each on the side that holds it.
    @Test func hostToPageIsPairedToo() throws {
        var s = TwoSidedSession()
        s.hostReady()
        let lost = s.send("h2w", "event", "ios-event-2", "host.background", receiver: false)
        let extra = s.send("h2w", "event", "ios-event-3", "host.foreground", sender: false)
        let r = try s.analyze()
        #expect(r.crossingCounts == ["bridge-not-delivered": 1, "bridge-unposted-receipt": 1])
        let notDelivered = try #require(r.findings("bridge-not-delivered").first)
        #expect(notDelivered.connection == "v1@native" && notDelivered.records == [lost.sent!])
        #expect(notDelivered.message == "the host sent event host.background (id ios-event-2, record \(lost.sent!) on v1@native) and the page never received it")
        let unposted = try #require(r.findings("bridge-unposted-receipt").first)
        #expect(unposted.connection == "v1@web" && unposted.records == [extra.received!])
        #expect(unposted.message == "the page received event host.foreground (id ios-event-3, record \(extra.received!)) that the host never sent on v1@native")
    }

    /// A post the tap said WebKit would not deliver, received all the same, is paired at
    /// the end (no other post could be its twin): nothing undelivered is reported.
    @Test func aPostTheTapGotWrongIsPairedAtTheEnd() throws {
        var s = TwoSidedSession()
        s.hostReady()
        s.send("w2h", "event", "web-1", "journey.step", crossing: Self.function)
        let r = try s.analyze()
        #expect(r.crossingCounts.isEmpty, "\(r.findings.map(\.description))")
    }

    /// A retry after an undelivered post pairs with its own receipt, not the first post's.
    @Test func aRetryAfterAnUndeliveredPostPairsWithItsReceipt() throws {
        var s = TwoSidedSession()
        s.hostReady()
        let first = s.send("w2h", "event", "web-1", "journey.step", data: #"{"try":1}"#, crossing: Self.function, receiver: false)
        s.send("w2h", "event", "web-1", "journey.step", data: #"{"try":2}"#, receiverFirst: true)
        let r = try s.analyze()
        #expect(r.crossingCounts == ["bridge-not-delivered": 1])
        #expect(r.findings("bridge-not-delivered").first?.records == [first.sent!])
    }

    /// Lost data on the receiving side is named by the findings it may explain.
    @Test func aGapOnTheOtherSideIsNamed() throws {
        var s = TwoSidedSession()
        s.hostReady()
        s.lines.append(#"{"t":\#(TwoSidedSession.t0 + 5),"event":"gap","conn":"v1@native","dir":"w2h","bytes":300}"#)
        let gap = s.lines.count
        s.send("w2h", "event", "web-1", "journey.started", receiver: false)
        let r = try s.analyze()
        let f = try #require(r.findings("bridge-not-delivered").first)
        #expect(f.message.hasSuffix("; the recording of v1@native lost data at record \(gap), which may hold the receipt"), "\(f.message)")
        // The gap is a finding of its own, but no journey step: @native has no journey.
        #expect(r.countsBySlug["capture-gap"] == 1)
        #expect(r.connections.map(\.id) == ["v1@web"])
    }
}
