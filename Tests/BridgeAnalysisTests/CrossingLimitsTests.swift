import BridgeAnalysis
import BridgeProtocol
import Testing

/// What the crossing analysis does with one side missing, with malformed input, and past
/// its limits (docs/ANALYZER.md, "Memory and limits"): it says so once instead of
/// reporting false findings.
struct CrossingLimitsTests {
    /// A lone `@web` connection (no native twin) is analysed as any connection: the same
    /// findings as under another name, crossing notes as journey steps, and nothing about
    /// crossing, even for posts the tap says WebKit will not deliver.
    @Test func aLoneWebSideIsAnOrdinaryConnection() throws {
        var s = TwoSidedSession()
        s.happyJourney()
        s.send("w2h", "request", "n-1", "nfc.read", crossing: BridgeCrossingTests.function)
        let lone = try Fixtures.analyze(text: s.webSideOnly(as: "v1@web"))
        let plain = try Fixtures.analyze(text: s.webSideOnly(as: "c1"))
        #expect(lone.crossingCounts.isEmpty)
        #expect(lone.countsBySlug == plain.countsBySlug)
        #expect(lone.countsBySlug["unanswered-request"] == 1)
        #expect(lone.summary.requests == plain.summary.requests)
        #expect(lone.connections.map(\.id) == ["v1@web"])
        #expect(lone.connections[0].steps.map(\.action) == plain.connections[0].steps.map(\.action))
        #expect(lone.connections[0].steps.contains { $0.action == "capture.crossing" })
    }

    /// A lone `@native` connection is not analysed (no connection, no per-message or
    /// session findings, even for a broken message), and one finding says so.
    @Test func aLoneNativeSideIsSaidOnce() throws {
        var s = TwoSidedSession()
        s.happyJourney()
        let native = s.lines.filter { $0.contains(#""conn":"v1@native""#) }
        let text = native.joined(separator: "\n") + "\n" + #"{"t":1763830009999,"dir":"w2h","conn":"v1@native","text":"{\"version\":"}"# + "\n"
        let r = try Fixtures.analyze(text: text)
        #expect(r.countsBySlug == ["bridge-crossing-incomplete": 1])
        let f = try #require(r.findings.first)
        #expect(f.connection == "v1@native" && f.records == [1])
        #expect(f.message.hasPrefix("v1@native has no v1@web twin in this recording: its \(native.count + 1) messages were not analysed"))
        #expect(r.connections.isEmpty)
        #expect(r.summary.requests == 0)
    }

    /// Past 4,096 messages waiting for their twin, the connection's comparison stops: one
    /// finding names the record, and nothing left waiting is reported as not delivered;
    /// what was found before the cap stays.
    @Test func theWaitingCapStopsTheComparisonAndSaysSo() throws {
        var s = TwoSidedSession()
        s.hostReady()
        s.send("w2h", "event", "web-0", "journey.step", data: #"{"n":1}"#, receivedData: #"{"n":2}"#)
        var records: [Int] = []
        for i in 1...4_097 {
            records.append(s.send("w2h", "event", "web-\(i)", "journey.step", receiver: false).sent!)
        }
        let r = try s.analyze()
        #expect(r.crossingCounts == ["bridge-member-changed": 1, "bridge-crossing-incomplete": 1])
        let f = try #require(r.findings("bridge-crossing-incomplete").first)
        #expect(f.records == [records[4_096]])
        #expect(f.connection == "v1@web")
        #expect(f.message == "the comparison of v1@web with v1@native stopped at record \(records[4_096]): more than 4096 messages waited for their twin from the other side; from there on nothing of it was paired, and nothing left waiting is reported as not delivered")
        // One message fewer: every post is judged.
        var fewer = AnalyzerConfiguration()
        fewer.crossing.maxWaitingPerConnection = 4_097
        #expect(try s.analyze(configuration: fewer).crossingCounts == ["bridge-member-changed": 1, "bridge-not-delivered": 4_097])
    }

    /// The byte caps, per connection and for the session, stop the same way.
    @Test func theByteCapsStopTheComparison() throws {
        var s = TwoSidedSession()
        s.hostReady()
        let big = String(repeating: "A", count: 2_000)
        s.send("w2h", "event", "web-1", "journey.step", data: #"{"blob":"\#(big)"}"#, receiver: false)
        let stop = s.send("w2h", "event", "web-2", "journey.step", data: #"{"blob":"\#(big)"}"#, receiver: false).sent!
        var perConnection = AnalyzerConfiguration()
        perConnection.crossing.maxWaitingBytesPerConnection = 3_000
        let r = try s.analyze(configuration: perConnection)
        #expect(r.crossingCounts == ["bridge-crossing-incomplete": 1])
        #expect(r.findings.first?.records == [stop])
        #expect(r.findings.first?.message.contains("came to more than 3000 bytes") == true)
        var session = AnalyzerConfiguration()
        session.crossing.maxWaitingBytes = 3_000
        #expect(try s.analyze(configuration: session).findings.first?.message.contains("the session's messages waiting") == true)
    }

    /// Past the number of two-sided connections compared, further ones are said once.
    @Test func theConnectionCapIsSaidOnce() throws {
        var text = ""
        for k in 0..<3 {
            var s = TwoSidedSession()
            s.base = "v\(k)"
            s.now = Int64(k) * 1_000
            s.hostReady()
            text += s.text
        }
        var configuration = AnalyzerConfiguration()
        configuration.crossing.maxConnections = 2
        let r = try Fixtures.analyze(text: text, configuration: configuration)
        #expect(r.crossingCounts == ["bridge-crossing-incomplete": 1])
        #expect(r.findings.first?.message == "more than 2 two-sided connections: v2@native and those after it were not compared across the bridge")
    }

    /// Messages that are not JSON, or lack an id, pair with one equally lacking, in order;
    /// a bad crossing event (no direction) is a journey step and no note.
    @Test func malformedMessagesAndEvents() throws {
        var s = TwoSidedSession()
        s.hostReady()
        s.lines.append(#"{"t":1763830001000,"dir":"w2h","conn":"v1@web","text":"{\"broken\":"}"#)
        s.lines.append(#"{"t":1763830001001,"dir":"w2h","conn":"v1@native","text":"{\"broken\":"}"#)
        s.lines.append(#"{"t":1763830001002,"dir":"w2h","conn":"v1@web","msg":{"no":"id"}}"#)
        s.lines.append(#"{"t":1763830001003,"dir":"w2h","conn":"v1@native","msg":{"no":"ID"}}"#)
        s.lines.append(#"{"t":1763830001004,"event":"crossing","conn":"v1@web","reason":"not delivered: x"}"#)
        let post = s.send("w2h", "event", "web-1", "journey.step")
        let r = try s.analyze()
        #expect(r.crossingCounts == ["bridge-member-changed": 1], "\(r.findings.map(\.description))")
        #expect(r.findings("bridge-member-changed").first?.message == "a message (records 5 and 6) changed crossing from the page to the host: no: \"id\" on the web side, \"ID\" on the native side")
        #expect(post.sent! == 8)
        // The broken web message is reported once, by the per-message rules of the web side.
        #expect(r.countsBySlug["malformed-json"] == 1)
        #expect(r.connections[0].steps.contains { $0.action == "capture.crossing" && $0.detail == "not delivered: x" })
    }
}
