import BridgeTestSupport
import BridgeAnalysis
import BridgeArchive
import BridgeProtocol
import Foundation
import Testing

/// The analyzer reads tap logs through BridgeArchive's one parser (docs/FORMAT.md §9):
/// times, directions, raw `msg` slicing, `text`, capture events, and bad lines as
/// capture errors, exactly as `record --tap` reads them.
struct TapLogParserTests {
    func events(_ text: String) throws -> [AnalysisEvent] {
        var source = TapLogSource(bytes: Array(text.utf8))
        var out: [AnalysisEvent] = []
        while let e = try source.next() { out.append(e) }
        return out
    }

    @Test func msgIsSlicedByteExactWhateverItsPosition() throws {
        let envelope = #"{ "version" : "1.0","correlationId":"a\u00e9","type":"event","timestamp":1,"payload":{"action":"x.y"} }"#
        let lines = [
            #"{"t":1700000000000,"dir":"w2h","msg":\#(envelope)}"#,
            #"{"msg":  \#(envelope)  ,"t":1700000000000,"dir":"h2w","conn":"k"}"#,
            "{\"t\":1700000000000,\r\n",  // broken on purpose: becomes an error event
        ]
        let evs = try events(lines[0] + "\n" + lines[1] + "\n")
        #expect(evs.count == 2)
        for e in evs {
            guard case .message(_, let t, _, _, let bytes, _) = e else { Issue.record("not a message"); continue }
            #expect(Array(bytes) == Array(envelope.utf8))
            #expect(t == 1_700_000_000_000_000_000)
        }
        if case .message(_, _, let dir, let conn, _, let record) = evs[1] {
            #expect(dir == .hostToWeb)
            #expect(conn == "k")
            #expect(record == 2)
        }
        if case .message(_, _, _, let conn, _, _) = evs[0] { #expect(conn == TapSource.defaultConnection) }
    }

    /// `record --tap` (BridgeArchive) and `analyze` read the same `t` the same way: a
    /// value between 10^14 and 10^15 is milliseconds to both.
    @Test func theMillisecondNanosecondThresholdIsTheArchives() throws {
        let evs = try events(#"{"t":500000000000000,"dir":"w2h","text":"x"}"# + "\n" + #"{"t":1000000000000000,"dir":"w2h","text":"x"}"# + "\n")
        guard evs.count == 2, case .captureEvent(_, _, _, .error(let why), _) = evs[0], case .message(_, let ns, _, _, _, _) = evs[1] else {
            Issue.record("expected an error and a message: \(evs)"); return
        }
        #expect(why.contains("line 1") && why.contains("beyond the year 2262"), "\(why)")
        #expect(ns == 1_000_000_000_000_000)
    }

    /// Integer milliseconds or nanoseconds; a fraction is refused (FORMAT.md §9), as
    /// `record --tap` refuses it, and named with its line.
    @Test func timesInMillisecondsOrNanosecondsNotFractions() throws {
        let evs = try events("""
        {"t":1700000000123,"dir":"w2h","text":"x"}
        {"t":1700000000123.5,"dir":"w2h","text":"x"}
        {"t":1700000000123456789,"dir":"w2h","text":"x"}
        """)
        #expect(evs.map(\.time) == [1_700_000_000_123_000_000, 1_700_000_000_123_000_000, 1_700_000_000_123_456_789])
        guard case .captureEvent(_, _, _, .error(let why), 2) = evs[1] else { Issue.record("expected an error: \(evs[1])"); return }
        #expect(why.hasPrefix("line 2: ") && why.contains("must be an integer"), "\(why)")
    }

    @Test func textCarriesBytesThatAreNotJSON() throws {
        let evs = try events(#"{"t":1,"dir":"w2h","text":"{\"version\":1,"}"#)
        guard case .message(_, _, _, _, let bytes, _) = evs[0] else { Issue.record("not a message"); return }
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"version":1,"#)
    }

    @Test func captureEventsAndHeaders() throws {
        let evs = try events("""
        {"bridgescope":"session","formatVersion":1}
        {"t":5,"event":"open","conn":"c1"}
        {"t":6,"event":"gap","conn":"c1","bytes":1200}
        {"t":7,"event":"drop","count":3}
        {"t":8,"event":"error","text":"truncated tail"}

        {"t":9,"event":"close","conn":"c1"}
        """)
        let kinds: [CaptureEventKind] = evs.compactMap {
            if case .captureEvent(_, _, _, let k, _) = $0 { return k } else { return nil }
        }
        #expect(kinds == [.open, .gap(bytes: 1200), .drop(count: 3), .error("truncated tail"), .close])
        #expect(evs.map(\.record) == [2, 3, 4, 5, 7])
    }

    @Test(arguments: [
        ("not json at all", "not valid JSON"),
        (#"[1,2]"#, "not a JSON object"),
        (#"{"dir":"w2h","text":"x"}"#, "missing \"t\""),
        (#"{"t":"soon","dir":"w2h","text":"x"}"#, "\"t\" must be an integer"),
        (#"{"t":-1.5,"dir":"w2h","text":"x"}"#, "\"t\" must be an integer"),
        (#"{"t":1,"dir":"up","text":"x"}"#, "\"dir\" must be \"w2h\" or \"h2w\""),
        (#"{"t":1,"text":"x"}"#, "missing \"dir\""),
        (#"{"t":1,"dir":"w2h"}"#, "missing \"msg\""),
        (#"{"t":1,"dir":"w2h","b64":"not base64!"}"#, "\"b64\" must be a canonical base64"),
        (#"{"t":1,"dir":"w2h","conn":[1],"text":"x"}"#, "\"conn\" must be a string"),
        (#"{"t":1,"event":7}"#, "\"event\" must be a kind"),
        (#"{"t":1,"dir":"w2h","text":"x",}"#, "not valid JSON"),
        (#"{"t":1,"dir":"w2h","text":"x","t":2}"#, "appears twice"),
    ])
    func badLinesBecomeCaptureErrorsWithTheLineNumber(_ line: String, _ reason: String) throws {
        let evs = try events("{\"t\":1,\"dir\":\"w2h\",\"text\":\"ok\"}\n" + line + "\n")
        #expect(evs.count == 2)
        guard case .captureEvent(_, _, _, .error(let text), let record) = evs[1] else {
            Issue.record("expected an error event for \(line)")
            return
        }
        #expect(record == 2)
        #expect(text.hasPrefix("line 2: "))
        #expect(text.contains(reason), "\(text)")
    }

    /// An event kind this version does not know is kept (FORMAT.md §5), not refused.
    @Test func unknownEventKindsAreKept() throws {
        let evs = try events(#"{"t":1,"event":"rotate","conn":"w1"}"# + "\n")
        guard case .captureEvent(_, _, let conn, _, 1)? = evs.first else { Issue.record("no event: \(evs)"); return }
        #expect(conn == "w1")
    }

    @Test func b64CarriesBytesThatAreNotUTF8() throws {
        let evs = try events(#"{"t":1,"dir":"w2h","b64":"e30K/w=="}"#)
        guard case .message(_, _, _, _, let bytes, 1)? = evs.first else {
            Issue.record("no message: \(evs)")
            return
        }
        #expect(Array(bytes) == [0x7B, 0x7D, 0x0A, 0xFF])
    }

    @Test func invalidUTF8LineIsAnErrorEvent() throws {
        var bytes = Array(#"{"t":1,"dir":"w2h","text":"x"}"#.utf8) + [0x0A]
        bytes += Array(#"{"t":2,"dir":"w2h","text":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8) + [0x0A]
        var source = TapLogSource(bytes: bytes)
        _ = try source.next()
        guard case .captureEvent(_, _, _, .error(let text), 2)? = try source.next() else {
            Issue.record("expected an error event")
            return
        }
        #expect(text.contains("UTF-8") || text.contains("utf"), "\(text)")
        #expect(try source.next() == nil)
    }

    @Test func linesLongerThanOneReadChunkAreReadWhole() throws {
        let big = String(repeating: "A", count: 2_500_000)
        let text = #"{"t":1,"dir":"w2h","text":"a"}"# + "\n" + #"{"t":2,"dir":"h2w","text":"\#(big)"}"# + "\n" + #"{"t":3,"dir":"w2h","text":"c"}"#
        let url = TestScratch.rootURL.appendingPathComponent("bridgescope-big-\(getpid()).ndjson")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        var source = try TapLogSource(path: url.path)
        var sizes: [Int] = []
        while let e = try source.next() {
            if case .message(_, _, _, _, let bytes, _) = e { sizes.append(bytes.count) }
        }
        #expect(sizes == [1, 2_500_000, 1])
    }

    @Test func missingFileIsAnUnreadableInputError() {
        #expect(throws: AnalysisError.self) { _ = try TapLogSource(path: "/nonexistent/dir/x.ndjson") }
        #expect(throws: AnalysisError.self) { _ = try SessionInput.open("/nonexistent/dir/x.bsz") }
        #expect(throws: AnalysisError.self) { _ = try SessionInput.open("/nonexistent/dir/x.txt") }
    }

    @Test func truncatedLastLineIsReadOrReported() throws {
        let evs = try events(#"{"t":1,"dir":"w2h","text":"a"}"# + "\n" + #"{"t":2,"dir":"w2h","te"#)
        #expect(evs.count == 2)
        if case .captureEvent(_, let t, _, .error, _) = evs[1] { #expect(t == 1_000_000) } else { Issue.record("no error event") }
    }

    @Test func everySplitOfTheInputGivesTheSameEvents() throws {
        // The line reader is fed the whole input; the parser sees the same lines whatever
        // the chunking, which here is checked by feeding prefixes cut at every line end.
        let text = try String(contentsOfFile: Fixtures.path("malformed-traffic.ndjson"), encoding: .utf8)
        let whole = try events(text)
        #expect(whole.count == 12)
        let crlf = try events(text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n"))
        #expect(crlf == whole)
    }
}
