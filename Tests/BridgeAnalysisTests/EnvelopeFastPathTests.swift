@testable import BridgeAnalysis
import BridgeArchive
import BridgeJSON
import BridgeProtocol
import BridgeTestSupport
import Foundation
import Testing

/// The analyzer's fast path (`EnvelopeScanner`, issue 21) held to the full decoder: per
/// message, the scanner either declines or the decoder finds nothing and reads the same
/// fields; per session, the report with the fast path is the report without it, on every
/// fixture, every sample capture, a generated session with planted anomalies
/// (`tools/bench/analyze/generate.py`) and one of mutated messages.
struct EnvelopeFastPathTests {
    /// Every message of the fixtures and sample captures, with its direction.
    static func corpus() throws -> [(bytes: [UInt8], direction: Direction)] {
        var out: [(bytes: [UInt8], direction: Direction)] = []
        func drain(_ source: inout some AnalysisEventSource) throws {
            while let e = try source.next() {
                if case .message(_, _, let dir, _, let bytes, _) = e { out.append((Array(bytes), dir)) }
            }
        }
        for name in Fixtures.names {
            var source = try TapLogSource(path: Fixtures.path(name))
            try drain(&source)
        }
        for name in try Self.captureNames() {
            var source = try ArchiveEventSource(path: CapturesTests.directory.appendingPathComponent(name).path)
            try drain(&source)
        }
        return out
    }

    static func captureNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: CapturesTests.directory.path).filter { $0.hasSuffix(".bsz") }.sorted()
    }

    /// Checks one message; returns whether the scanner answered.
    @discardableResult
    static func agree(_ bytes: [UInt8], _ direction: Direction?, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Bool {
        var scanner = EnvelopeScanner()
        guard let s = bytes.withUnsafeBytes({ scanner.scan($0, direction: direction) }) else { return false }
        let text = String(decoding: bytes, as: UTF8.self)
        let full = EnvelopeDecoder().decode(bytes, direction: direction)
        #expect(full.findings.isEmpty, "\(text): \(full.findings.map(\.slug))", sourceLocation: sourceLocation)
        guard let env = full.envelope else {
            Issue.record("\(text): the scanner read an envelope the decoder does not", sourceLocation: sourceLocation)
            return true
        }
        #expect(s.type == env.type, sourceLocation: sourceLocation)
        #expect(String(decoding: bytes[s.correlationId], as: UTF8.self) == env.correlationId, sourceLocation: sourceLocation)
        #expect(bytes.withUnsafeBytes { scanner.action(of: s, in: $0) } == env.payload.action.rawValue, sourceLocation: sourceLocation)
        #expect(s.timestamp == env.timestamp, sourceLocation: sourceLocation)
        #expect(s.status == env.payload.status, sourceLocation: sourceLocation)
        #expect(s.errorCode == env.payload.error?.code, sourceLocation: sourceLocation)
        #expect(s.errorRecoverable == env.payload.error?.recoverable, sourceLocation: sourceLocation)
        let data = s.data.flatMap { r -> JSONObject? in
            guard case .object(let o)? = try? JSONParser().parse(Array(bytes[r])).value else { return nil }
            return o
        }
        #expect((data.map { JSONValue.object($0) }) == (env.payload.data.map { JSONValue.object($0) }), "\(text)", sourceLocation: sourceLocation)
        return true
    }

    @Test func scannerAgreesWithTheDecoderOnEveryRecordedMessage() throws {
        let messages = try Self.corpus()
        #expect(messages.count > 1_000)
        var answered = 0
        for m in messages {
            if Self.agree(m.bytes, m.direction) { answered += 1 }
            Self.agree(m.bytes, nil)
            Self.agree(m.bytes, m.direction.reversed)
        }
        #expect(answered > messages.count / 2, "the fast path should take most clean messages: \(answered) of \(messages.count)")
    }

    /// Mutated messages: byte changes, insertions and deletions.
    static func mutations(of messages: [(bytes: [UInt8], direction: Direction)], count: Int, seed: UInt64) -> [(bytes: [UInt8], direction: Direction)] {
        var rng = SplitMix64(seed: seed)
        let specials: [UInt8] = Array(#"{}[]",:\ 0x-1e.nul"#.utf8) + [0xFF, 0x00, 0x09, 0xC3]
        var out: [(bytes: [UInt8], direction: Direction)] = []
        for n in 0..<count {
            var m = messages[Int(rng.next() % UInt64(messages.count))]
            for _ in 0...(rng.next() % 2) where !m.bytes.isEmpty {
                let at = Int(rng.next() % UInt64(m.bytes.count))
                switch rng.next() % 3 {
                case 0: m.bytes[at] = specials[Int(rng.next() % UInt64(specials.count))]
                case 1: m.bytes.insert(specials[Int(rng.next() % UInt64(specials.count))], at: at)
                default: m.bytes.remove(at: at)
                }
            }
            if n % 7 == 0 { m.direction = m.direction.reversed }
            out.append(m)
        }
        return out
    }

    @Test func scannerNeverAnswersWhereTheDecoderFindsSomething() throws {
        let mutated = Self.mutations(of: try Self.corpus(), count: 20_000, seed: 0x21)
        var answered = 0
        for m in mutated where Self.agree(m.bytes, m.direction) { answered += 1 }
        #expect(answered > 1_000 && answered < 19_000)
    }

    /// The report of `source` with and without the fast path.
    static func bothReports(_ open: () throws -> any AnalysisEventSource, name: String,
                            configuration: AnalyzerConfiguration = AnalyzerConfiguration()) throws -> (fast: AnalysisReport, full: AnalysisReport) {
        func run(_ fast: Bool) throws -> AnalysisReport {
            var source = try open()
            var analyzer = SessionAnalyzer(source: name, configuration: configuration)
            analyzer.usesEnvelopeScanner = fast
            while let e = try source.next() { analyzer.feed(e) }
            return analyzer.finish()
        }
        return (try run(true), try run(false))
    }

    @Test(arguments: Fixtures.names)
    func fixtureReportIsTheSameWithoutTheFastPath(_ name: String) throws {
        let r = try Self.bothReports({ try TapLogSource(path: Fixtures.path(name)) }, name: name)
        #expect(r.fast == r.full)
    }

    @Test func captureReportsAreTheSameWithoutTheFastPath() throws {
        for name in try Self.captureNames() {
            let path = CapturesTests.directory.appendingPathComponent(name).path
            let r = try Self.bothReports({ try ArchiveEventSource(path: path) }, name: name)
            #expect(r.fast == r.full, "\(name)")
        }
    }

    /// generate.py's field session (fixed seed): journeys on 8 connections with its
    /// planted anomalies (unanswered NFC reads, late selfies, BUSY storms).
    @Test func generatedSessionReportIsTheSameWithoutTheFastPath() throws {
        let script = ProjectPaths.root.appendingPathComponent("tools/bench/analyze/generate.py").path
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script, "--redacted", "--messages", "40000", "--parallel", "8"])
        #expect(result.status == 0)
        let log = Array(result.stdout.utf8)
        #expect(log.count > 5_000_000)
        let r = try Self.bothReports({ TapLogSource(bytes: log, name: "generated") }, name: "generated")
        #expect(r.fast == r.full)
        #expect(r.fast.summary.messages >= 40_000)
        #expect(!r.fast.findings.isEmpty)
    }

    /// A session of mutated messages on several connections, in capture order.
    @Test func mutatedSessionReportIsTheSameWithoutTheFastPath() throws {
        let mutated = Self.mutations(of: try Self.corpus(), count: 6_000, seed: 0x5E55)
        var lines: [String] = []
        for (n, m) in mutated.enumerated() {
            let t = 1_763_830_000_000 + Int64(n) * 7
            let text = String(decoding: m.bytes, as: UTF8.self)
            // Valid JSON goes in as "msg", anything else as "text" (the tap log's rule).
            let body = JSONValidator().isValid(m.bytes) && !text.contains("\n") ? "\"msg\":\(text)" : "\"text\":\(JSONWriter().string(.string(text)))"
            lines.append(#"{"t":\#(t),"dir":"\#(m.direction.rawValue)","conn":"c\#(n % 5)",\#(body)}"#)
        }
        let log = Array((lines.joined(separator: "\n") + "\n").utf8)
        let r = try Self.bothReports({ TapLogSource(bytes: log, name: "mutated") }, name: "mutated")
        #expect(r.fast == r.full)
        #expect(r.fast.summary.messages > 5_000)
    }

    /// Ids around the identifier limit (256 bytes: longer ones are clipped): the fast path
    /// finds a response's request by the id's bytes, the decoder's by its clipped
    /// `String`. Both pair the same requests and responses, and two ids that differ only
    /// past the limit are one id to both (reused).
    @Test func idsAroundTheClipLimitPairTheSameWayOnBothPaths() throws {
        let limit = AnalyzerConfiguration().limits.maxIdentifierBytes
        var ids = [1, 36, limit - 1, limit, limit + 1, 300].map { String(repeating: "i", count: $0 - 1) + "z" }
        ids.append(String(repeating: "i", count: 299) + "y")  // the 300-byte one but for its last byte
        ids.append("0123abcd-0000-4000-a000-0123456789AB")  // a UUID in mixed case
        var log = C1TapLog()
        for round in 0..<3 {
            for id in ids {
                log.line("w2h", #"{"version":"1.0","correlationId":"\#(id)","type":"request","timestamp":\#(log.t),"payload":{"action":"nfc.read","data":{}}}"#)
            }
            for id in ids.reversed() where round != 1 || id.count != limit {
                log.line("h2w", #"{"version":"1.0","correlationId":"\#(id)","type":"response","timestamp":\#(log.t),"payload":{"action":"nfc.read","status":"success","data":{}}}"#)
            }
        }
        let r = try Self.bothReports({ TapLogSource(bytes: log.bytes, name: "long ids") }, name: "long ids")
        #expect(r.fast == r.full)
        let slugs = r.fast.findings.map(\.slug)
        // The two 300-byte ids clip to one: the second request reuses the first's open id,
        // and the second response answers an id answered already.
        #expect(slugs.contains("reused-correlation-id") && slugs.contains("duplicate-response"), "\(slugs)")
        // The limit-long id left unanswered in round 1 is open again in round 2: reused.
        #expect(r.fast.summary.requests == 3 * ids.count)
        #expect(!slugs.contains("unknown-correlation"), "\(slugs)")
    }

    /// Actions around a small identifier limit (8 bytes): the fast path clips the
    /// scanner's action only when it is longer, as the decoder's path clips every one;
    /// both give the same report, with the long actions cut and marked, and both tell
    /// the actions apart by what was sent (the decoder's path took `host.ready`, cut to
    /// `host.rea…`, for another action, and reported `missing-host-ready`).
    @Test func actionsAroundASmallClipLimitAreTheSameOnBothPaths() throws {
        var configuration = AnalyzerConfiguration()
        configuration.limits.maxIdentifierBytes = 8
        var log = C1TapLog()
        for (n, action) in ["nfc.read", "nfc.reads", "camera.selfie.capture", "x.y", "journey.progress", "nfc.readz"].enumerated() {
            log.line("w2h", #"{"version":"1.0","correlationId":"r\#(n)","type":"request","timestamp":\#(log.t),"payload":{"action":"\#(action)","data":{}}}"#)
            log.line("h2w", #"{"version":"1.0","correlationId":"r\#(n)","type":"response","timestamp":\#(log.t),"payload":{"action":"\#(action)","status":"success","data":{}}}"#)
            log.line("w2h", #"{"version":"1.0","correlationId":"e\#(n)","type":"event","timestamp":\#(log.t),"payload":{"action":"\#(action)","data":{}}}"#)
        }
        let r = try Self.bothReports({ TapLogSource(bytes: log.bytes, name: "short limit") }, name: "short limit", configuration: configuration)
        #expect(r.fast == r.full)
        #expect(!r.fast.findings.contains { $0.slug == "missing-host-ready" }, "host.ready is host.ready, clipped or not")
        let actions = Set(r.fast.latency.map(\.action))
        #expect(actions.contains("nfc.read") && actions.contains("camera.s…") && !actions.contains("camera.selfie.capture"), "\(actions)")
    }

    /// `response-not-consumed` compares data by canonical text: the same data with its
    /// keys in another order or spelled with an escape is the same data on both paths;
    /// other data is not. Also a capability answer repeated byte for byte, then changed.
    @Test func sameDataInOtherBytesAndRepeatedCapabilityAnswers() throws {
        var b = TapBuilder()
        b.start()
        let minute: Int64 = 60_000
        b.request(100, "n-1", "nfc.read", data: #"{"a":1,"b":"x"}"#)
        b.response(200, "n-1", "nfc.read", data: #"{"dg":1}"#)
        b.request(100 + 10 * minute, "n-2", "nfc.read", data: #"{"b":"x","a":1}"#)  // same data, keys reordered
        b.response(100 + 10 * minute + 5, "n-2", "nfc.read", data: #"{"dg":1}"#)
        b.request(100 + 20 * minute, "n-3", "nfc.read", data: #"{"b":"\u0078","a":1}"#)  // same, escaped (full decoder)
        b.response(100 + 20 * minute + 5, "n-3", "nfc.read", data: #"{"dg":1}"#)
        b.request(100 + 30 * minute, "n-4", "nfc.read", data: #"{"b":"y","a":1}"#)  // other data
        b.response(100 + 30 * minute + 5, "n-4", "nfc.read", data: #"{"dg":1}"#)
        b.request(100 + 40 * minute, "n-5", "nfc.read")  // no data
        b.response(100 + 40 * minute + 5, "n-5", "nfc.read")
        b.request(100 + 50 * minute, "n-6", "nfc.read")
        b.response(100 + 50 * minute + 5, "n-6", "nfc.read")
        for (n, caps) in [#"{"nfc.read":{"supported":true,"version":"1.0"}}"#, #"{"nfc.read":{"supported":true,"version":"1.0"}}"#,
                          #"{"nfc.read":{"version":"1.0","supported":true}}"#, #"{"nfc.read":{"supported":false,"version":"1.0"}}"#].enumerated() {
            let t = 100 + 60 * minute + Int64(n) * 100
            b.request(t, "q-\(n + 2)", "capability.query")
            b.response(t + 5, "q-\(n + 2)", "capability.query", data: #"{"environment":"ios","hostVersion":"1.0","capabilities":\#(caps)}"#)
        }
        let log = Array(b.text.utf8)
        let r = try Self.bothReports({ TapLogSource(bytes: log, name: "data") }, name: "data")
        #expect(r.fast == r.full)
        // n-2, n-3, n-6, and q-2 (a data-less capability.query again after an hour).
        #expect(r.fast.countsBySlug["response-not-consumed"] == 4)
        // q-2 (fewer capabilities than the first answer) and q-5 (supported: false); q-3
        // repeats q-2 byte for byte and q-4 in another key order: no change.
        #expect(r.fast.countsBySlug["host-reinit"] == 2)
    }
}

/// `DataMemberReader` (a string member of a data object read from its bytes) against
/// `JSONObject[key]` on the parsed object.
struct DataMemberReaderTests {
    static func expected(_ key: String, _ text: String) -> DataMemberReader.Answer {
        guard case .object(let o)? = try? JSONParser().parse(text).value else { return .undecided }
        guard let v = o[key] else { return .absent }
        if case .string(let s) = v { return .string(s) }
        return .notAString
    }

    @Test(arguments: [
        (#"{"side":"front","documentType":"passport"}"#, "side"), (#"{"documentType":"passport","side":"back"}"#, "side"),
        (#"{"a":{"side":"x"},"side":"y"}"#, "side"), (#"{"a":["side","z"],"b":"side"}"#, "side"), (#"{"side":1}"#, "side"),
        (#"{ "side" : "é" , "x" : null }"#, "side"), (#"{}"#, "side"), (#"{"sid":"a","sidex":"b"}"#, "side"),
        (#"{"side":"a\"b"}"#, "side"), (#"{"s\u0069de":"a"}"#, "side"), (#"{"x":"\\","side":"q"}"#, "side"),
        (#"{"status":"completed","referenceId":"r-1"}"#, "status"), (#"{"encryptedBlob":{"redacted":true}}"#, "encryptedBlob"),
    ])
    func agreesWithTheParsedObject(_ text: String, _ key: String) {
        let answer = DataMemberReader.string(key, in: Array(text.utf8)[...])
        if answer != .undecided { #expect(answer == Self.expected(key, text), "\(text)") }
    }

    @Test func decidesThePlainCases() {
        #expect(DataMemberReader.string("side", in: Array(#"{"documentType":"id","side":"back"}"#.utf8)[...]) == .string("back"))
        #expect(DataMemberReader.string("side", in: Array(#"{"a":{"side":"x"}}"#.utf8)[...]) == .absent)
        #expect(DataMemberReader.string("side", in: Array(#"{"side":[1]}"#.utf8)[...]) == .notAString)
        #expect(DataMemberReader.string("side", in: Array(#"{"side":"a\nb"}"#.utf8)[...]) == .undecided)
        // Long strings (found with memchr), with escaped quotes and backslashes in them.
        let image = String(repeating: "QUJD", count: 50_000)
        let long = #"{"previewImageData":""# + image + #"\"\\","x":{"y":""# + image + #""},"side":"front"}"#
        #expect(DataMemberReader.string("side", in: Array(long.utf8)[...]) == .string("front"))
        #expect(DataMemberReader.string("previewImageData", in: Array(long.utf8)[...]) == .undecided)
        #expect(Self.expected("side", long) == .string("front"))
    }
}

/// A tap log of connection `c1` written line by line, each line 3 ms after the one
/// before, opening with the host's `host.ready` (a message's `timestamp` is `t` when its
/// line is added).
struct C1TapLog {
    var lines: [String] = []
    var t: Int64 = 1_763_830_000_000

    init() {
        line("h2w", #"{"version":"1.0","correlationId":"ready","type":"event","timestamp":\#(t),"payload":{"action":"host.ready","data":{}}}"#)
    }

    mutating func line(_ dir: String, _ msg: String) {
        t += 3
        lines.append(#"{"t":\#(t),"dir":"\#(dir)","conn":"c1","msg":\#(msg)}"#)
    }

    /// The log's bytes, a newline after each line.
    var bytes: [UInt8] { Array((lines.joined(separator: "\n") + "\n").utf8) }
}
