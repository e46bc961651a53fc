@testable import BridgeArchive
import Testing

/// `ArchiveInterpreter.plainRecord` (the allocation-free read of a record line as the
/// recorder writes it) against `fastRecord` (the general scan it stands in front of):
/// whatever the plain read accepts, the general scan accepts with the same record.
struct PlainRecordTests {
    static let interpreter = ArchiveInterpreter(header: ArchiveHeader(source: "test", startTime: 1, toolVersion: "t"))
    static let lines = [
        #"{"seq":1,"t":1763830000000000000,"dir":"w2h","conn":"c1","msg":{"version":"1.0","correlationId":"r1","type":"request","timestamp":1,"payload":{"action":"a.b","data":{"s":"}\"{"}}}}"#,
        #"{ "msg" : [1,2] , "conn" : "tab 2" , "dir" : "h2w" , "t" : -9223372036854775808 , "seq" : 0 }"#,
        #"{"seq":9223372036854775807,"t":0,"dir":"x","conn":"","msg":"text"}"#,
    ]

    func line(_ text: String) -> ArchiveLine { ArchiveLine(number: 2, bytes: Array(text.utf8), frameOffset: 0) }

    @Test(arguments: lines)
    func plainLinesReadAsTheGeneralScanReadsThem(_ text: String) {
        let plain = Self.interpreter.plainRecord(line(text))
        #expect(plain != nil)
        #expect(plain == Self.interpreter.fastRecord(line(text)))
    }

    @Test(arguments: [
        #"{"seq":01,"t":1,"dir":"w2h","conn":"c1","msg":{}}"#, #"{"seq":-0,"t":1,"dir":"w2h","conn":"c1","msg":{}}"#,
        #"{"seq":1,"t":1,"dir":"w\u0032h","conn":"c1","msg":{}}"#, #"{"seq":1,"t":1,"dir":"w2h","conn":"c1","msg":{},"x":1}"#,
        #"{"seq":1,"t":1,"dir":"w2h","conn":"c1","msg":{},"msg":{}}"#, #"{"seq":1,"t":1.0,"dir":"w2h","conn":"c1","msg":{}}"#,
        #"{"seq":1,"t":99999999999999999999,"dir":"w2h","conn":"c1","msg":{}}"#, #"{"seq":1,"t":1,"dir":"w2h","conn":"é","msg":{}}"#,
    ])
    func unusualLinesAreLeftToTheGeneralScan(_ text: String) {
        #expect(Self.interpreter.plainRecord(line(text)) == nil)
    }

    /// Mutations of the plain lines: never a record the general scan would not give.
    @Test func mutatedLinesNeverDisagree() {
        var rng = SeededRandom(seed: 0x21)
        func next() -> UInt64 { rng.next() }
        let specials: [UInt8] = Array(#"{}[]",:\ 0x-1e."#.utf8) + [0xFF, 0x00, 0x09]
        var accepted = 0
        for n in 0..<5_000 {
            var bytes = Array(Self.lines[n % Self.lines.count].utf8)
            for _ in 0...(next() % 2) {
                let at = Int(next() % UInt64(bytes.count))
                switch next() % 3 {
                case 0: bytes[at] = specials[Int(next() % UInt64(specials.count))]
                case 1: bytes.insert(specials[Int(next() % UInt64(specials.count))], at: at)
                default: bytes.remove(at: at)
                }
            }
            let l = ArchiveLine(number: 2, bytes: bytes, frameOffset: 0)
            if let plain = Self.interpreter.plainRecord(l) {
                accepted += 1
                #expect(plain == Self.interpreter.fastRecord(l), "\(String(decoding: bytes, as: UTF8.self))")
            }
        }
        #expect(accepted > 500)
    }

    /// `RecordLineScanner.valueEnd` on objects and arrays (short strings skipped in its
    /// own loop) against the scan it replaced (`stringEnd` for every string), on random
    /// bytes rich in quotes, backslashes and brackets, with strings short and long.
    @Test func valueEndAgreesWithTheStringEndScan() {
        var rng = SeededRandom(seed: 0x48)
        func next() -> UInt64 { rng.next() }
        let alphabet: [UInt8] = Array(#"{}[]"\ax,:"#.utf8)
        var ended = 0
        for _ in 0..<20_000 {
            var bytes: [UInt8] = [next() % 2 == 0 ? UInt8(ascii: "{") : UInt8(ascii: "[")]
            for _ in 0..<(next() % 200) {
                let r = next() % 40
                if r == 0 {
                    bytes += Array(repeating: UInt8(ascii: "a"), count: Int(next() % 120))  // a long run inside or outside a string
                } else {
                    bytes.append(alphabet[Int(next() % UInt64(alphabet.count))])
                }
            }
            let depth = Int(next() % 6) + 1
            let (mine, theirs) = bytes.withUnsafeBytes { (RecordLineScanner.valueEnd($0, 0, maxDepth: depth), Self.referenceContainerEnd($0, 0, maxDepth: depth)) }
            #expect(mine == theirs, "\(String(decoding: bytes, as: UTF8.self))")
            if mine != nil { ended += 1 }
        }
        #expect(ended > 1_000)
    }

    /// The eight-bytes-at-a-time skips (`shortStringEnd`, `containerEnd`) against the
    /// byte-by-byte scans, on bytes that look like quotes and brackets to a careless
    /// test (`Y`, `_`, `y`, DEL, 0x02, 0x3B, bytes above 0x7F), at every alignment and
    /// near the end of the buffer.
    /// The end of the object or array at `open`, byte by byte: the reference the
    /// scanner's fast paths are held to.
    static func referenceContainerEnd(_ b: UnsafeRawBufferPointer, _ open: Int, maxDepth: Int) -> Int? {
        var d = 0, i = open
        while i < b.count {
            switch b[i] {
            case UInt8(ascii: "\""):
                guard let e = RecordLineScanner.stringEnd(b, i) else { return nil }
                i = e
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                d += 1
                if d > maxDepth { return nil }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                d -= 1
                if d == 0 { return i + 1 }
            default: break
            }
            i += 1
        }
        return nil
    }

    /// The 64-byte block scan (escapes carried across blocks, strings by prefix XOR,
    /// long strings by memchr, a backslash outside strings read byte by byte) gives the
    /// byte scan's answer: values of 0-700 bytes, many of them with strings, escapes and
    /// backslash runs across block edges, strings longer than a block, deep nesting.
    @Test func blockScanAgreesWithTheByteScan() {
        var rng = SeededRandom(seed: 0xB10C)
        func next() -> UInt64 { rng.next() }
        var found = 0, longStrings = 0
        for _ in 0..<40_000 {
            var bytes: [UInt8] = Array(repeating: UInt8(ascii: " "), count: Int(next() % 3))
            let open = bytes.count
            bytes.append(next() % 2 == 0 ? UInt8(ascii: "{") : UInt8(ascii: "["))
            var inString = false
            for _ in 0..<(next() % 60) {
                switch next() % 12 {
                case 0: bytes += Array(repeating: UInt8(ascii: "a"), count: Int(next() % 140))
                case 1: bytes += Array(repeating: UInt8(ascii: "\\"), count: Int(next() % 6))
                case 2, 3:
                    bytes.append(UInt8(ascii: "\""))
                    inString.toggle()
                case 4: bytes += Array(#"{"k":["#.utf8)
                case 5: bytes += Array("]}".utf8)
                case 6: bytes.append(inString ? UInt8(ascii: "{") : UInt8(ascii: "}"))
                case 7: bytes.append(inString ? UInt8(ascii: "]") : UInt8(ascii: "["))
                case 8: bytes += Array(#""\\\""#.utf8)
                default: bytes += Array(#","x":1"#.utf8)
                }
            }
            if next() % 2 == 0 { bytes += Array(repeating: UInt8(ascii: "}"), count: Int(next() % 12)) }
            let depth = Int(next() % 10) + 1
            bytes.withUnsafeBytes { b in
                let reference = Self.referenceContainerEnd(b, open, maxDepth: depth)
                let fast = RecordLineScanner.containerEnd(b, open, maxDepth: depth)
                #expect(fast == reference, "\(bytes)")
                #expect(RecordLineScanner.containerEndByBytes(b, open, maxDepth: depth) == reference)
                if fast != nil { found += 1 }
                if fast.map({ $0 - open > 200 }) == true { longStrings += 1 }
            }
        }
        #expect(found > 5_000 && longStrings > 500, "\(found) ends, \(longStrings) past 200 bytes")
    }

    @Test func eightByteSkipsAgreeWithTheByteScans() {
        var rng = SeededRandom(seed: 0x5A)
        func next() -> UInt64 { rng.next() }
        let alphabet: [UInt8] = Array(#"{}[]"\a,:Y_y;"#.utf8) + [0x7F, 0x02, 0x80, 0xDB, 0xFD, 0xA2]
        var strings = 0, containers = 0
        for _ in 0..<30_000 {
            var bytes: [UInt8] = Array(repeating: UInt8(ascii: " "), count: Int(next() % 9))
            let open = bytes.count
            bytes.append(next() % 3 == 0 ? UInt8(ascii: "\"") : (next() % 2 == 0 ? UInt8(ascii: "{") : UInt8(ascii: "[")))
            for _ in 0..<(next() % 90) {
                let r = next() % 30
                if r == 0 {
                    bytes += Array(repeating: UInt8(ascii: "a"), count: Int(next() % 100))
                } else if r == 1 {
                    bytes += Array(repeating: UInt8(ascii: "\\"), count: Int(next() % 5))
                } else {
                    bytes.append(alphabet[Int(next() % UInt64(alphabet.count))])
                }
            }
            bytes.withUnsafeBytes { b in
                if b[open] == UInt8(ascii: "\"") {
                    let fast = RecordLineScanner.shortStringEnd(b, open), slow = RecordLineScanner.stringEnd(b, open)
                    #expect(fast == slow, "\(bytes)")
                    if fast != nil { strings += 1 }
                } else {
                    let depth = Int(next() % 6) + 1
                    let reference = Self.referenceContainerEnd(b, open, maxDepth: depth)
                    let fast = RecordLineScanner.valueEnd(b, open, maxDepth: depth)
                    #expect(fast == reference, "\(bytes)")
                    if fast != nil { containers += 1 }
                }
            }
        }
        #expect(strings > 1_000 && containers > 1_000)
    }

    /// `plainFields(_:accept:)` trusting the tail (the message checked by the consumer,
    /// as `export --jsonl` does with `isVerbatimJSON`) gives exactly the fields of the
    /// walk, on the plain lines, lines whose `msg` is followed by more members or junk,
    /// and 20,000 mutations of them; and the tail is tried only when `msg` comes last.
    @Test func trustingTheTailGivesTheFieldsOfTheWalk() {
        var rng = SeededRandom(seed: 0x7A)
        func next() -> UInt64 { rng.next() }
        let bases = Self.lines + [
            #"{"seq":1,"t":1,"dir":"w2h","conn":"c1","msg":{"a":1},"seq":2}"#,
            #"{"seq":1,"t":1,"dir":"w2h","conn":"c1","msg":{"a":1} , "x":{"b":2}}"#,
            #"{"seq":1,"t":1,"dir":"w2h","conn":"c1","msg":{"a":"}"}  }  "#,
            #"{"seq":1,"t":1,"dir":"w2h","conn":"c1","msg":[{"a":[]},"]}"] }"#,
            #"{"seq":1,"t":1,"dir":"w2h","conn":"c1","msg":{"a":\#r1}}"#,
            #"{"seq":1,"t":1,"dir":"w2h","conn":"c1","msg":12}"#,
        ]
        let specials: [UInt8] = Array(#"{}[]",:\ 0x-1e."#.utf8) + [0xFF, 0x00, 0x09, 0x0D]
        var trusted = 0
        for n in 0..<20_000 {
            var bytes = Array(bases[n % bases.count].utf8)
            if n >= bases.count { Self.mutate(&bytes, specials, &rng) }
            bytes.withUnsafeBytes { b in
                let walked = ArchiveInterpreter.plainFields(b)
                var tried = false
                let trusting = ArchiveInterpreter.plainFields(b, accept: { msg, _, _ in tried = true; return ArchivePayloadEncoding.isVerbatimJSON(msg) })
                #expect(walked?.msg == trusting?.msg && walked?.seq == trusting?.seq && walked?.time == trusting?.time
                        && walked?.dir == trusting?.dir && walked?.conn == trusting?.conn,
                        "\(String(decoding: bytes, as: UTF8.self))")
                if trusting?.accepted == true { trusted += 1 }
                if tried { #expect(walked == nil || b[walked!.msg.upperBound...].allSatisfy { $0 == UInt8(ascii: "}") || RecordLineScanner.isSpace($0) }) }
            }
        }
        #expect(trusted > 800)
    }

    /// The writer's layout read directly (`canonicalFields`, tried first) against the
    /// general read of any layout: the same fields and the same `accept` answer on the
    /// writer's lines, lines that leave the layout (spaces, order, repeats, junk after
    /// `msg`), and 30,000 mutations of them; and the direct read takes the writer's lines.
    @Test func theWritersLayoutReadsAsTheGeneralReadReadsIt() {
        var rng = SeededRandom(seed: 0xCA)
        func next() -> UInt64 { rng.next() }
        let bases = Self.lines + [
            #"{"seq":12,"t":-5,"dir":"h2w","conn":"c 1","msg":{"a":[1,{"b":"}"}]}}"#,
            #"{"seq":1,"t":1,"dir":"w2h","conn":"c1","msg":"text"}"#,
            #"{"seq":1,"t":1,"dir":"w2h","conn":"c1","msg":12 }"#,
            #"{"seq":1,"t":1,"dir":"w2h","conn":"c1","msg":{"a":1},"x":2}"#,
            #"{"seq":1,"t":1,"dir":"w2h","conn":"c1","msg":{"a":1}} x"#,
            #"{"seq":1,"t":1,"conn":"c1","dir":"w2h","msg":{}}"#,
            #"{"seq":1,"t":1,"dir":"w2h","conn":"c"1","msg":{}}"#,
            #"{"seq":1,"t":1,"dir":"w2h","conn":"c1","msg":"#,
        ]
        let specials: [UInt8] = Array(#"{}[]",:\ 0x-1e."#.utf8) + [0xFF, 0x00, 0x09, 0x0D, 0x7F]
        var direct = 0
        for n in 0..<30_000 {
            var bytes = Array(bases[n % bases.count].utf8)
            if n >= bases.count { Self.mutate(&bytes, specials, &rng) }
            bytes.withUnsafeBytes { b in
                if ArchiveInterpreter.canonicalFields(b) != nil { direct += 1 }
                let trust = n % 2 == 0
                let accept: ArchiveInterpreter.PlainAccept = { msg, _, _ in trust && ArchivePayloadEncoding.isVerbatimJSON(msg) }
                for a in [nil, accept] {
                    let first = ArchiveInterpreter.plainFields(b, accept: a), general = ArchiveInterpreter.generalFields(b, accept: a)
                    #expect(first?.msg == general?.msg && first?.seq == general?.seq && first?.time == general?.time
                            && first?.dir == general?.dir && first?.conn == general?.conn && first?.accepted == general?.accepted,
                            "\(String(decoding: bytes, as: UTF8.self))")
                }
            }
        }
        #expect(direct > 3_000)
    }

    /// One or two changes to `bytes`: a byte replaced by, or inserted from, `specials`, or
    /// removed (never the last one).
    static func mutate(_ bytes: inout [UInt8], _ specials: [UInt8], _ rng: inout SeededRandom) {
        for _ in 0...(rng.next() % 2) where !bytes.isEmpty {
            let at = Int(rng.next() % UInt64(bytes.count))
            switch rng.next() % 3 {
            case 0: bytes[at] = specials[Int(rng.next() % UInt64(specials.count))]
            case 1: bytes.insert(specials[Int(rng.next() % UInt64(specials.count))], at: at)
            default: if bytes.count > 1 { bytes.remove(at: at) }
            }
        }
    }

    /// `plainInteger` (18 digits unchecked, a 19th checked) against `Int64(_:)` on the
    /// edges and on random lexemes of 1 to 20 digits, signed and not, before every kind of
    /// byte that can follow, at the end of the bytes and with bytes after: it reads what
    /// the walk (`valueEnd`) would end, and nothing when anything but a delimiter follows
    /// the digits.
    @Test func plainIntegersReadAsInt64ReadsThem() {
        var rng = SeededRandom(seed: 0x1D)
        func next() -> UInt64 { rng.next() }
        var texts = ["0", "-0", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
                     "999999999999999999", "1000000000000000000", "99999999999999999999", "01", "-", "", "1a", "12-3"]
        for _ in 0..<20_000 {
            var t = next() % 2 == 0 ? "-" : ""
            let n = Int(next() % 20) + 1
            for i in 0..<n { t.append(Character(String(i == 0 ? 1 + next() % 9 : next() % 10))) }
            texts.append(t)
        }
        /// The reference: `Int64(_:)`, `-` only when `negative`, `-0` a lexeme, `01` not.
        func reference(_ lexeme: String, negative: Bool) -> Int64? {
            if lexeme.hasPrefix("-") && !negative { return nil }
            let digits = lexeme.drop(while: { $0 == "-" })
            if digits.count > 1, digits.hasPrefix("0") { return nil }
            return Int64(lexeme)
        }
        for text in texts {
            for negative in [false, true] {
                for tail in ["", ",", "}", "]", " ", "\t", "x", "0", "-", ".5", "e1", "\""].flatMap({ [$0, $0 + "        ,"] }) {
                    let line = Array((text + tail).utf8)
                    let mine: Int64? = line.withUnsafeBytes { b in
                        guard let (v, e) = ArchiveInterpreter.plainInteger(b, from: 0, negative: negative),
                              e == b.count || RecordLineScanner.endsScalar(b[e]) else { return nil }
                        return v
                    }
                    let walked: Int64? = line.withUnsafeBytes { b in
                        RecordLineScanner.valueEnd(b, 0, maxDepth: 64).flatMap {
                            reference(String(decoding: UnsafeRawBufferPointer(rebasing: b[..<$0]), as: UTF8.self), negative: negative)
                        }
                    }
                    #expect(mine == walked, "\(text + tail) negative: \(negative)")
                }
            }
        }
    }
}
