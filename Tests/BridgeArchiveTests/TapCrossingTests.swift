import BridgeArchive
import Testing

/// A tap line's `crossing` member (docs/FORMAT.md §9): a `crossing` event, then the
/// message; a malformed member is an error naming the line, and the message is kept.
@Suite("Tap log crossing member")
struct TapCrossingTests {
    static let envelope = #"{"version":"1.0","correlationId":"r1","type":"request","timestamp":1700000000000,"payload":{"action":"camera.document.capture","data":{"side":"front"}}}"#

    static func line(_ crossing: String, conn: String? = "x@web", dir: String = "w2h") -> String {
        let c = conn.map { #","conn":"\#($0)""# } ?? ""
        return #"{"t":1700000000000,"dir":"\#(dir)"\#(c),"msg":\#(envelope),"crossing":\#(crossing)}"#
    }

    static func parse(_ text: String) -> [TapLogParser.Entry] {
        TapLogParserTests.parseAll(text)
    }

    @Test("delivered:false gives a crossing event, then the message, both of the line")
    func notDelivered() throws {
        let entries = Self.parse(Self.line(#"{"delivered":false,"changes":["payload.data.cb: a function; WebKit does not deliver a message that holds one"]}"#) + "\n")
        #expect(entries.count == 2)
        guard case .event(let e) = entries[0], case .message(let m) = entries[1] else {
            Issue.record("expected an event then a message: \(entries)"); return
        }
        #expect(e.event.kind == .crossing)
        #expect(e.event.kind.rawValue == "crossing")
        #expect(e.event.connection == "x@web")
        #expect(e.event.direction == .webToHost)
        #expect(e.event.time == m.time)
        #expect(e.line == 1 && m.line == 1)
        #expect(e.event.reason == "not delivered: payload.data.cb: a function; WebKit does not deliver a message that holds one")
        // The message is sliced as ever, the crossing member after it left out.
        #expect(String(decoding: m.payload, as: UTF8.self) == Self.envelope)
    }

    @Test("changes are joined by \"; \" after \"changed: \"")
    func changed() throws {
        let entries = Self.parse(Self.line(#"{"changes":["payload.data.n: a BigInt, dropped","payload.data.d: a Date, sent as {}"],"delivered":true,"extra":1}"#) + "\n")
        guard entries.count == 2, case .event(let e) = entries[0], case .message = entries[1] else {
            Issue.record("expected an event then a message: \(entries)"); return
        }
        #expect(e.event.reason == "changed: payload.data.n: a BigInt, dropped; payload.data.d: a Date, sent as {}")
    }

    @Test("nothing to say (delivered, no change), or null: the message alone")
    func quiet() {
        for crossing in [#"{"delivered":true,"changes":[]}"#, #"{"delivered":true}"#, "null"] {
            let entries = Self.parse(Self.line(crossing) + "\n")
            #expect(entries.count == 1, "\(crossing)")
            if case .message = entries.first {} else { Issue.record("\(crossing): \(entries)") }
        }
        // Not delivered, with no reason given.
        let entries = Self.parse(Self.line(#"{"delivered":false,"changes":[]}"#) + "\n")
        if case .event(let e) = entries.first { #expect(e.event.reason == "not delivered") } else { Issue.record("\(entries)") }
    }

    @Test("a line without conn: the event is on the message's connection, tap")
    func defaultConnection() {
        let entries = Self.parse(Self.line(#"{"delivered":false}"#, conn: nil, dir: "h2w") + "\n")
        guard entries.count == 2, case .event(let e) = entries[0], case .message(let m) = entries[1] else {
            Issue.record("\(entries)"); return
        }
        #expect(m.connection == nil)
        #expect(e.event.connection == TapSource.defaultConnection)
        #expect(e.event.direction == .hostToWeb)
    }

    @Test("malformed crossing members: an error naming the line, then the message", arguments: [
        (#"[]"#, #""crossing" must be an object, not array"#),
        (#""no""#, #""crossing" must be an object, not string"#),
        (#"{"changes":[]}"#, #""crossing"."delivered" must be true or false, not missing"#),
        (#"{"delivered":"false"}"#, #""crossing"."delivered" must be true or false, not string"#),
        (#"{"delivered":0}"#, #""crossing"."delivered" must be true or false, not number"#),
        (#"{"delivered":false,"changes":"BigInt"}"#, #""crossing"."changes" must be an array of strings, not string"#),
        (#"{"delivered":false,"changes":["a",2]}"#, #""crossing"."changes"[1] must be a string, not number"#),
    ])
    func malformed(_ crossing: String, _ why: String) {
        let text = #"{"t":1,"dir":"w2h","text":"x"}"# + "\n" + Self.line(crossing) + "\n"
        let entries = Self.parse(text)
        #expect(entries.count == 3, "\(entries)")
        guard entries.count == 3, case .error(let e) = entries[1], case .message(let m) = entries[2] else {
            Issue.record("expected an error then the message: \(entries)"); return
        }
        #expect(e.line == 2 && m.line == 2)
        #expect(e.reason == why + "; the message is imported without it", "\(e.reason)")
        #expect(e.messageImported)
        #expect(TapLogParserTests.errors(Self.parse("{\"t\":1}\n")).first?.messageImported == false)
        #expect(String(decoding: m.payload, as: UTF8.self) == Self.envelope)
    }

    @Test("a bad line stays one error: the crossing member is not read")
    func badLineWithCrossing() {
        let entries = Self.parse(#"{"t":1,"msg":{},"crossing":{"delivered":false}}"# + "\n")
        #expect(entries.count == 1)
        #expect(TapLogParserTests.errors(entries).first?.reason.contains("missing \"dir\"") == true)
    }

    @Test("the reason is cut to 4 KiB on a character boundary")
    func reasonCap() {
        let long = String(repeating: "é", count: 3000)  // 6,000 bytes
        let entries = Self.parse(Self.line(#"{"delivered":true,"changes":["\#(long)"]}"#) + "\n")
        guard case .event(let e)? = entries.first, let reason = e.event.reason else { Issue.record("\(entries)"); return }
        #expect(reason.utf8.count <= 4096)
        #expect(reason.utf8.count > 4090)
        #expect(reason.hasPrefix("changed: éé") && reason.hasSuffix("…"))
        #expect(TapCrossing(delivered: true, changes: ["short"]).reason == "changed: short")
    }

    @Test("split into any chunks, the entries are the same")
    func chunked() {
        let text = Self.line(#"{"delivered":false,"changes":["payload.data.cb: a function"]}"#) + "\n" + #"{"t":2,"dir":"h2w","text":"y"}"#
        let whole = Self.parse(text)
        #expect(whole.count == 3)
        for chunks in [[1], [7, 3], [64]] {
            #expect(TapLogParserTests.parseAll(text, chunks: chunks) == whole)
        }
    }

    /// `record --tap`: the event line comes immediately before its record, on the
    /// same connection and direction.
    @Test("record --tap writes the crossing event immediately before its record")
    func recordTap() throws {
        let dir = TemporaryDirectory()
        let tap = dir.file("two-sided.ndjson")
        let text = [
            Self.line(#"{"delivered":false,"changes":["payload.data.cb: a function"]}"#),
            #"{"t":1700000000001,"dir":"w2h","conn":"x@native","msg":{"a":1}}"#,
            Self.line(#"{"delivered":7}"#),
        ].joined(separator: "\n") + "\n"
        try text.write(toFile: tap, atomically: true, encoding: .utf8)
        let source = try TapSource(path: tap)
        let out = dir.file("out.bsz")
        let writer = try ArchiveWriter(path: out, header: ArchiveHeader(source: source.sourceDescription, startTime: 0, toolVersion: "test"))
        try source.record(into: writer, control: RecordingControl())
        _ = try writer.finish()
        let reader = try ArchiveReader(path: out)
        var items: [ArchiveItem] = []
        while let item = reader.next() { items.append(item) }
        guard items.count == 6, case .event(let crossing) = items[0], case .record(let r1) = items[1],
              case .record(let r2) = items[2], case .event(let error) = items[3], case .record(let r3) = items[4],
              case .trailer = items[5] else {
            Issue.record("\(items)"); return
        }
        #expect(crossing.kind == .crossing && crossing.seq == 1 && r1.seq == 2)
        #expect(crossing.connection == r1.connection && crossing.direction == r1.direction)
        #expect(crossing.reason == "not delivered: payload.data.cb: a function")
        #expect(r2.connection == "x@native")
        #expect(error.kind == .error && error.line == 3)
        #expect(error.reason?.contains("\"crossing\".\"delivered\" must be true or false") == true)
        #expect(String(decoding: r3.payload, as: UTF8.self) == Self.envelope)
    }
}
