@testable import BridgeJSON
import Testing

/// ``JSONMemberScanner/plainObjectEnd(_:from:depth:)`` (the walk for envelopes' plain
/// `data` objects) against the general scan (``JSONMemberScanner/scanValueGenerally(_:at:depth:)``):
/// whatever the walk answers, the general scan accepts with the same end; and the walk
/// answers the plain objects the field sends.
struct PlainObjectScanTests {
    /// Checks one text at `depth`; returns whether the walk answered.
    @discardableResult
    static func agree(_ text: [UInt8], depth: Int = 2, limits: JSONLimits = .default,
                      sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Bool {
        let scanner = JSONMemberScanner(limits: limits, recordedDepth: 0)
        var general = scanner
        return text.withUnsafeBytes { b in
            var end = 0
            let accepted = general.scanValueGenerally(b, at: &end, depth: depth)
            guard let walked = scanner.plainObjectEnd(b, from: 0, depth: depth) else { return false }
            #expect(accepted && walked == end, "\(String(decoding: text, as: UTF8.self)): walked to \(walked), general \(accepted) to \(end)",
                    sourceLocation: sourceLocation)
            return true
        }
    }

    static let samples = [
        #"{"orientation":"portrait"}"#, #"{"documentType":"passport","side":"front"}"#,
        #"{"step":"document-front","percent":40}"#, #"{}"#, #"{ }"#, #"{"a":true,"b":false,"c":null}"#,
        #"{"imageData":{"redacted":true,"sha256":"16c94b1fabd75d128b726db43f9b9c6f89fd78ea65b867fe5ef7c42878706184","bytes":161360},"width":1280,"height":900,"mimeType":"image/jpeg"}"#,
        #"{ "a" : 0 , "b" : { "c" : { } } }"#, "{\n\t\"a\":\r\n1}",
    ]

    @Test func theFieldsPlainObjectsAreWalked() {
        for s in Self.samples { #expect(Self.agree(Array(s.utf8)), "\(s)") }
    }

    /// What the walk leaves to the general scan, accepted or not there.
    @Test func whatTheWalkLeaves() {
        let left = [
            #"{"a":1,"a":2}"#, #"{"a":[1]}"#, #"{"a":-1}"#, #"{"a":1.5}"#, #"{"a":1e3}"#, #"{"a":01}"#, #"{"a":"\n"}"#,
            #"{"a\u0062":1}"#, #"{"a":"b\"c"}"#, #"{"a":1,}"#, #"{"a" 1}"#, #"{"a":tru}"#, #"{"a":truex}"#, #"{"a":1"#,
            #"{"a":{"a":1,"a":2}}"#, "{\"a\":\"\u{1}\"}",
            #"{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9}"#,
        ]
        for s in left {
            #expect(!Self.agree(Array(s.utf8)), "\(s)")
        }
    }

    /// Every limit the general scan applies, at its edge: the walk never accepts past it.
    @Test func limitsAtTheirEdges() {
        let text = Array(#"{"ab":{"cd":"efgh","n":12345},"x":true}"#.utf8)
        for depth in 0...5 {
            for limits in [JSONLimits(maxDepth: 3), JSONLimits(maxDepth: 4), JSONLimits(maxDepth: 5), JSONLimits(maxStringBytes: 3),
                           JSONLimits(maxStringBytes: 4), JSONLimits(maxMembers: 1), JSONLimits(maxMembers: 2),
                           JSONLimits(maxNumberBytes: 4), JSONLimits(maxNumberBytes: 5)] {
                Self.agree(text, depth: depth, limits: limits)
            }
        }
    }

    /// Hostile shapes: nesting past the walk's recursion limit (it declines; the general
    /// scan decides), an object cut at every byte, and a long run of members.
    @Test func deepCutAndWideObjects() {
        for levels in [3, 23, 24, 25, 30, 200] {
            let text = Array((String(repeating: #"{"a":"#, count: levels) + "1" + String(repeating: "}", count: levels)).utf8)
            Self.agree(text, depth: 0, limits: JSONLimits(maxDepth: 1_000))
            let scanner = JSONMemberScanner(limits: JSONLimits(maxDepth: 1_000), recordedDepth: 0)
            let walked = text.withUnsafeBytes { scanner.plainObjectEnd($0, from: 0, depth: 0) }
            #expect((walked != nil) == (levels <= JSONMemberScanner.maxRecursionDepth), "\(levels) levels")
        }
        let sample = Array(Self.samples[6].utf8)
        for k in 0..<sample.count {
            #expect(!Self.agree(Array(sample.prefix(k))), "cut at \(k)")
        }
        let wide = Array(("{" + (0..<5_000).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}").utf8)
        #expect(!Self.agree(wide))
    }

    /// Each sample with every single byte replaced by each of the bytes that matter to
    /// the grammar, with one byte deleted and with one inserted: the walk and the general
    /// scan agree wherever the walk answers.
    @Test func mutatedObjectsAgree() {
        let bytes: [UInt8] = Array(#"{}[]":,\ntfnu0123456789-+.eE"#.utf8) + [0x00, 0x09, 0x0A, 0x0D, 0x1F, 0x7F, 0x80, 0xC3, 0xE2, 0xFF]
        var answered = 0, total = 0
        for s in Self.samples {
            let base = Array(s.utf8)
            for k in base.indices {
                var deleted = base
                deleted.remove(at: k)
                if Self.agree(deleted) { answered += 1 }
                total += 1
                for c in bytes {
                    var changed = base
                    changed[k] = c
                    var inserted = base
                    inserted.insert(c, at: k)
                    if Self.agree(changed) { answered += 1 }
                    if Self.agree(inserted) { answered += 1 }
                    total += 2
                }
            }
        }
        #expect(answered > 500 && answered < total, "answered \(answered) of \(total)")
    }

    /// Random plain and not-quite-plain objects, nested up to three levels.
    @Test func randomObjectsAgree() {
        var rng = SplitMix64(state: 0x0B7E_C75)
        func value(_ level: Int) -> String {
            switch rng.next() % 9 {
            case 0 where level < 3: return object(level + 1)
            case 1: return "\"\(word())\""
            case 2: return String(rng.next() % 100_000)
            case 3: return ["true", "false", "null"][Int(rng.next() % 3)]
            case 4: return "-\(rng.next() % 9)"
            case 5: return "[\(rng.next() % 3)]"
            case 6: return "\"a\\\"b\""
            default: return "\"\(word())\""
            }
        }
        func word() -> String { String((0..<Int(rng.next() % 6)).map { _ in Character(UnicodeScalar(UInt8(97 + rng.next() % 5))) }) }
        func object(_ level: Int) -> String {
            let n = Int(rng.next() % 10)
            let members = (0..<n).map { _ in "\"\(word())\":\(value(level))" }
            let space = rng.next() % 4 == 0 ? " " : ""
            return "{" + space + members.joined(separator: "," + space) + "}"
        }
        var answered = 0
        for _ in 0..<20_000 where Self.agree(Array(object(0).utf8)) { answered += 1 }
        #expect(answered > 2_000)
    }
}
