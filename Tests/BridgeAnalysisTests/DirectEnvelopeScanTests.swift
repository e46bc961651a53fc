import BridgeJSON
@testable import BridgeProtocol
import BridgeTestSupport
import Testing

/// The envelope scan's direct walk (`EnvelopeScanner.scanDirect`) held to the general
/// scan it goes before: wherever the walk answers, the general scan answers the same
/// (type, id, action and its known index, timestamp, status, error, data), on every
/// recorded message, on mutated ones, and on the same envelopes with their members
/// reordered and whitespace added; and it takes the plain messages the field sends.
struct DirectEnvelopeScanTests {
    /// Checks one message; returns whether the direct walk answered.
    @discardableResult
    static func agree(_ bytes: [UInt8], _ direction: Direction?, limits: JSONLimits = .default,
                      sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Bool {
        var direct = EnvelopeScanner(limits: limits), general = EnvelopeScanner(limits: limits)
        return bytes.withUnsafeBytes { b in
            guard let d = direct.scanDirect(b, direction: direction) else { return false }
            let g = general.scanGeneral(b, direction: direction)
            #expect(g == d, "\(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
            return true
        }
    }

    @Test func theWalkAnswersAsTheGeneralScanOnEveryRecordedMessage() throws {
        let messages = try EnvelopeFastPathTests.corpus()
        var direct = 0, general = 0
        for m in messages {
            var g = EnvelopeScanner()
            if m.bytes.withUnsafeBytes({ g.scanGeneral($0, direction: m.direction) }) != nil { general += 1 }
            if Self.agree(m.bytes, m.direction) { direct += 1 }
            Self.agree(m.bytes, nil)
            Self.agree(m.bytes, m.direction.reversed)
        }
        // The recorded messages are compact, in the usual member order: the walk takes
        // every one the general scan takes.
        #expect(general > 1_000 && direct == general, "direct \(direct), general \(general)")
    }

    @Test func theWalkNeverAnswersOtherwiseOnMutatedMessages() throws {
        let mutated = EnvelopeFastPathTests.mutations(of: try EnvelopeFastPathTests.corpus(), count: 30_000, seed: 0xD1EC7)
        var answered = 0
        for m in mutated where Self.agree(m.bytes, m.direction) { answered += 1 }
        #expect(answered > 1_000 && answered < 29_000)
    }

    /// The same envelopes re-serialized with their members in every order of a seeded
    /// shuffle and with whitespace around every token.
    @Test func memberOrderAndWhitespaceDoNotMatter() throws {
        let messages = try EnvelopeFastPathTests.corpus()
        var rng = SplitMix64(seed: 0x0DE2)
        var answered = 0
        for (n, m) in messages.enumerated() where n % 3 == 0 {
            guard let doc = try? JSONParser().parse(m.bytes), case .object(let o) = doc.value else { continue }
            let shuffled = Self.shuffle(.object(o), &rng)
            let compact = Array(JSONWriter().string(shuffled).utf8)
            let spaced = Self.spaced(compact)
            if Self.agree(compact, m.direction) { answered += 1 }
            Self.agree(spaced, m.direction)
            var g = EnvelopeScanner(), d = EnvelopeScanner()
            let general = spaced.withUnsafeBytes { g.scanGeneral($0, direction: m.direction) }
            let walked = spaced.withUnsafeBytes { d.scanDirect($0, direction: m.direction) }
            #expect((general == nil) == (walked == nil), "\(String(decoding: spaced, as: UTF8.self))")
        }
        #expect(answered > 300)
    }

    @Test func whatTheWalkLeavesToTheGeneralScan() {
        let base = #"{"version":"1.0","correlationId":"r1","type":"response","timestamp":1700000000000,"payload":{"action":"nfc.read","status":"error","error":{"code":"BUSY","message":"a \"quoted\" word","recoverable":true},"data":{"a":[1,{"b":null}]}}}"#
        #expect(Self.agree(Array(base.utf8), .hostToWeb))
        let declined: [(String, String, String)] = [
            ("a repeated member", #""type":"response","#, #""type":"response","type":"response","#),
            ("a repeated payload member", #""status":"error","#, #""status":"error","status":"error","#),
            ("a repeated error member", #""recoverable":true"#, #""recoverable":true,"recoverable":true"#),
            ("a repeated data member", #"{"a":[1"#, #"{"a":0,"a":[1"#),
            ("an unknown member", #""version":"1.0","#, #""version":"1.0","extra":1,"#),
            ("an escaped key", #""version":"1.0","#, #""versio\u006e":"1.0","#),
            ("another version", #""1.0""#, #""1.1""#),
            ("a fraction", #"1700000000000,"#, #"1700000000000.5,"#),
            ("an exponent", #"1700000000000,"#, #"1700000000000e0,"#),
            ("a leading zero", #"1700000000000,"#, #"01700000000000,"#),
            ("seconds", #"1700000000000,"#, #"1700000000,"#),
            ("a negative time", #"1700000000000,"#, #"-1700000000000,"#),
            ("an escaped id", #""r1""#, #""r\u0031""#),
            ("an empty id", #""r1""#, #""""#),
            ("an unknown status", #""status":"error""#, #""status":"failed""#),
            ("an unknown code", #""BUSY""#, #""BUSYY""#),
            ("success with an error", #""status":"error""#, #""status":"success""#),
            ("a bad action", #""nfc.read""#, #""nfc..read""#),
            ("data not an object", #""data":{"a":[1,{"b":null}]}"#, #""data":[1]"#),
            ("a trailing comma", #"{"b":null}]}"#, #"{"b":null},]}"#),
            ("trailing bytes", #"}}}"#, #"}}}x"#),
            ("a control character", #""a \"quoted\" word""#, "\"a \n word\""),
        ]
        for (what, from, to) in declined {
            let text = base.replacingOccurrences(of: from, with: to)
            #expect(text != base, "\(what)")
            #expect(!Self.agree(Array(text.utf8), .hostToWeb), "\(what): \(text)")
        }
        // A request that would be a response's, the other way, or tight limits.
        #expect(!Self.agree(Array(base.utf8), .webToHost))
        #expect(!Self.agree(Array(base.utf8), .hostToWeb, limits: JSONLimits(maxDepth: 2)))
        #expect(!Self.agree(Array(base.utf8), .hostToWeb, limits: JSONLimits(maxStringBytes: 8)))
        #expect(!Self.agree(Array(base.utf8), .hostToWeb, limits: JSONLimits(maxMembers: 2)))
        #expect(!Self.agree(Array(base.utf8), .hostToWeb, limits: JSONLimits(maxNumberBytes: 12)))
        #expect(!Self.agree(Array(base.utf8), .hostToWeb, limits: JSONLimits(maxInputBytes: 100)))
    }

    /// Timestamps of every length from 1 to 21 digits, and around `Int64.max`: the walk
    /// (eighteen digits unchecked, then one checked) takes exactly those the general
    /// scan takes, with the same value, and the decoder agrees.
    @Test func timestampsOfEveryLengthAndAroundTheLargestInteger() {
        var texts: [String] = []
        for n in 1...21 {
            texts.append(String(repeating: "9", count: n))
            texts.append("1" + String(repeating: "0", count: n - 1))
            texts.append("17" + String(repeating: "3", count: Swift.max(0, n - 2)))
        }
        texts += ["9223372036854775807", "9223372036854775808", "9223372036854775799", "9223372036854775810",
                  "9999999999999999999", "1000000000000000000", "92233720368547758070", "9223372036854775807.0"]
        var taken = 0
        for t in texts {
            let text = #"{"version":"1.0","correlationId":"e1","type":"event","timestamp":\#(t),"payload":{"action":"host.ready"}}"#
            let bytes = Array(text.utf8)
            var g = EnvelopeScanner()
            let general = bytes.withUnsafeBytes { g.scanGeneral($0, direction: .hostToWeb) }
            if Self.agree(bytes, .hostToWeb) { taken += 1 } else { #expect(general == nil, "\(t)") }
            if let general { #expect(general.timestamp == Int64(t), "\(t)") }
            #expect(EnvelopeFastPathTests.agree(bytes, .hostToWeb) == (general != nil), "\(t)")
        }
        // At or above 10^11 (12 digits) and up to Int64.max: the nines of 12-18 digits (7),
        // the powers of ten and the 1733... of 12-19 digits (8 each), and three of the
        // numbers around Int64.max (itself, ...799 and 10^18).
        #expect(taken == 7 + 8 + 8 + 3, "taken \(taken)")
    }

    static func shuffle(_ v: JSONValue, _ rng: inout SplitMix64) -> JSONValue {
        guard case .object(let o) = v else { return v }
        var members = o.members.map { JSONObject.Member(key: $0.key, value: shuffle($0.value, &rng)) }
        for i in stride(from: members.count - 1, to: 0, by: -1) { members.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
        return .object(JSONObject(members))
    }

    /// `compact` with a space, tab or newline around every structural byte outside strings.
    static func spaced(_ compact: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x20], inString = false, escaped = false
        for c in compact {
            if inString {
                out.append(c)
                if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false }
                continue
            }
            if c == UInt8(ascii: "\"") { inString = true }
            let structural = c == UInt8(ascii: "{") || c == UInt8(ascii: "}") || c == UInt8(ascii: ":") || c == UInt8(ascii: ",")
                || c == UInt8(ascii: "[") || c == UInt8(ascii: "]")
            if structural { out.append(0x09) }
            out.append(c)
            if structural { out.append(contentsOf: [0x0D, 0x0A]) }
        }
        out.append(0x20)
        return out
    }
}
