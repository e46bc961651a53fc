import BridgeAnalysis
@_spi(Testing) import BridgeArchive
import BridgeJSON
import BridgeProtocol
import Testing

/// The one archive reader reads record lines without a full parse (`RecordLineScanner`,
/// in `ArchiveInterpreter`); these tests hold that fast path, as the analyzer sees it, to
/// the full line decoder (`ArchiveLineDecoder`) on the same lines.
struct ArchiveInterpreterTests {
    static let header = #"{"bridgescope":"session","formatVersion":1,"source":"test","host":null,"filter":null,"startTime":1,"toolVersion":"t"}"#
    static let envelope = #"{"version":"1.0","correlationId":"r\"1\\","type":"response","timestamp":1763830000000,"payload":{"action":"camera.document.capture","status":"success","data":{"imageData":"QUJD\"]}{[","note":"a \\\" b","list":[1,[2,{"x":"}"}]]}}}"#

    /// Record lines the fast path must read exactly as ArchiveReader does.
    static let validLines = [
        #"{"seq":1,"t":1763830000000000000,"dir":"w2h","conn":"c1","msg":\#(envelope)}"#,
        #"{"msg":\#(envelope),"conn":"c\"2\u00e9","dir":"h2w","t":5,"seq":1}"#,
        #"{ "seq" : 1 , "t" : 6 , "dir" : "h2w" , "conn" : "c1" , "msg" : \#(envelope) , "extra" : {"a":[1,2]} }"#,
        #"{"seq":1,"t":-7,"dir":"sideways","conn":"c1","msg":[1,2,3]}"#,
        #"{"seq":1,"t":8,"dir":"w2h","conn":"c1","msg":"just a string"}"#,
        #"{"seq":1,"t":9,"dir":"w2h","conn":"c1","msg":12.5e3}"#,
        #"{"seq":1,"t":10,"dir":"w2h","conn":"c1","text":"{\"broken"}"#,
        #"{"seq":1,"t":11,"dir":"w2h","conn":"c1","b64":"/w=="}"#,
        #"{"seq":1,"t":12,"event":"gap","conn":"c1","dir":"h2w","bytes":10}"#,
        #"{"seq":1,"t":13,"dir":"w2h","conn":"","msg":{}}"#,
    ]

    /// Lines ArchiveReader rejects (`invalid-line`); the fast path must not accept them.
    static let invalidLines = [
        #"{"seq":1,"t":1,"dir":"w2h","conn":"c1","msg":{},"msg":{}}"#,
        #"{"seq":1,"seq":2,"t":1,"dir":"w2h","conn":"c1","msg":{}}"#,
        #"{"seq":-1,"t":1,"dir":"w2h","conn":"c1","msg":{}}"#,
        #"{"seq":1.5,"t":1,"dir":"w2h","conn":"c1","msg":{}}"#,
        #"{"seq":1,"t":1e3,"dir":"w2h","conn":"c1","msg":{}}"#,
        #"{"seq":1,"t":99999999999999999999,"dir":"w2h","conn":"c1","msg":{}}"#,
        #"{"seq":1,"t":1,"dir":7,"conn":"c1","msg":{}}"#,
        #"{"seq":1,"t":1,"dir":"w2h","msg":{}}"#,
        #"{"seq":1,"t":1,"dir":"w2h","conn":"c1"}"#,
        #"{"seq":1,"t":1,"dir":"w2h","conn":"c1","msg":{},"text":"x"}"#,
        #"{"seq":1,"t":1,"dir":"w2h","conn":"c1","msg":{},"extra":tru}"#,
        #"{"seq":1,"t":1,"dir":"w2h","conn":"c1","msg":{}} x"#,
        #"{"seq":1,"t":1,"dir":"w2h","conn":"c1","msg":{}"#,
        #"{"seq":1,"t":1,"dir":"w2h","conn":"c1","msg":}"#,
        #"{"seq":1,"t":1,"dir":"w2h","conn":"c\x","msg":{}}"#,
        #"["seq",1]"#,
        "",
    ]

    /// What one line gives: a message (its fields), or the kinds of the findings.
    enum Outcome: Equatable {
        case message(seq: Int, time: Int64, dir: String, conn: String, bytes: [UInt8])
        case other(String)
        case finding(String)
    }

    static func mine(_ line: String) throws -> [Outcome] {
        var source = try ArchiveEventSource(bytes: ArchiveTesting.compressLines([header, line]))
        var out: [Outcome] = []
        while let e = try source.next() {
            switch e {
            case .message(let seq, let time, let dir, let conn, let bytes, _):
                out.append(.message(seq: seq, time: time, dir: dir.rawValue, conn: conn, bytes: Array(bytes)))
            case .captureEvent(_, _, _, .error(let text), _), .captureEvent(_, _, _, .lost(let text), _):
                let kind = text.hasPrefix("record ") ? "dir" : text.split(separator: " ").dropFirst().first.map(String.init) ?? text
                out.append(.finding(kind))
            case .captureEvent(_, _, _, .gap, _):
                out.append(.other("gap"))
            case .captureEvent(_, _, _, let kind, _):
                out.append(.other("\(kind)"))
            }
        }
        return out
    }

    /// The full line decoder on the line alone (no fast path), as the reader would
    /// report it in a one-line archive without a trailer.
    static func reference(_ line: String) throws -> [Outcome] {
        var out: [Outcome] = []
        do throws(ArchiveLineError) {
            let entry = try ArchiveLineDecoder().decode(Array(line.utf8), formatVersion: 1)
            switch entry {
            case .record(let r) where r.seq != 1: out.append(.finding("sequence-gap"))
            case .event(let e) where e.seq != 1: out.append(.finding("sequence-gap"))
            default: break
            }
            switch entry {
            case .record(let r) where r.direction.isKnown:
                out.append(.message(seq: r.seq, time: r.time, dir: r.direction.rawValue, conn: r.connection, bytes: r.payload))
            case .record:
                out.append(.finding("dir"))
            case .event(let e):
                out.append(.other(e.kind.rawValue))
            case .header, .trailer:
                out.append(.finding("unexpected-line"))
            }
        } catch {
            out.append(.finding("invalid-line"))
        }
        return out + [.finding("missing-trailer")]
    }

    @Test(arguments: validLines)
    func recordLinesReadAsTheArchiveReaderReadsThem(_ line: String) throws {
        #expect(try Self.mine(line) == (try Self.reference(line)), "\(line)")
    }

    @Test(arguments: invalidLines)
    func invalidLinesAreInvalidLines(_ line: String) throws {
        #expect(try Self.mine(line) == [.finding("invalid-line"), .finding("missing-trailer")], "\(line)")
        #expect(try Self.reference(line) == [.finding("invalid-line"), .finding("missing-trailer")], "\(line)")
    }

    /// 3,000 mutations of valid record lines: whenever ArchiveReader reads a record, the
    /// analyzer reads the same one; whenever ArchiveReader rejects the line, the analyzer
    /// rejects it too, or keeps a message whose bytes are not valid JSON (reported by the
    /// per-message rules; most mutations land in the envelope, the longest member).
    @Test func mutatedLinesAgreeWithTheArchiveReader() throws {
        var rng = SplitMix64(seed: 0x5EED)
        let specials: [UInt8] = Array(#"{}[]",:\ 0x-1e."#.utf8) + [0xFF, 0x00, 0x09]
        let decoder = EnvelopeDecoder()
        var agreed = 0, rejectedAsMessage = 0
        for n in 0..<3_000 {
            var bytes = Array(Self.validLines[n % 3].utf8)
            for _ in 0...(rng.next() % 3) {
                let at = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 3 {
                case 0: bytes[at] = specials[Int(rng.next() % UInt64(specials.count))]
                case 1: bytes.insert(specials[Int(rng.next() % UInt64(specials.count))], at: at)
                default: bytes.remove(at: at)
                }
            }
            bytes.removeAll { $0 == 0x0A || $0 == 0x0D }
            let line = String(decoding: bytes, as: UTF8.self)
            guard Array(line.utf8) == bytes else { continue }  // not UTF-8: the frame builder takes strings
            let ref = try Self.reference(line), mine = try Self.mine(line)
            if case .message? = ref.first {
                #expect(mine.first == ref.first, "\(line)")
                agreed += 1
            } else if case .message(_, _, _, _, let b)? = mine.first {
                #expect(!decoder.decode(b).findings.isEmpty && decoder.decode(b).envelope == nil, "\(line)")
                rejectedAsMessage += 1
            } else {
                // Both reject the record; a broken line whose `dir` is also unknown may say so instead.
                let rejected: [Outcome?] = [ref.first, .finding("invalid-line"), .finding("dir")]
                #expect(rejected.contains(mine.first), "\(line): \(mine) vs \(ref)")
                agreed += 1
            }
        }
        #expect(agreed > 1_500)
        #expect(rejectedAsMessage < 1_000)
    }
}

/// A small deterministic generator (SplitMix64).
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
