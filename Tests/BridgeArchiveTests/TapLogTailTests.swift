@_spi(Testing) @testable import BridgeArchive
import Testing

/// `export --jsonl` copies the tail of a record line in the writer's layout
/// (``TapLogExporter/verbatimTail(_:_:maxLineBytes:)``) instead of encoding it again:
/// whenever it copies, the bytes are exactly what the encoder writes for the line's
/// fields, and lines it must not copy (`-0`, spaces, another member after `msg`, a
/// message over the encoder's budget) are encoded as before.
/// (Over the budget the encoder writes no line: `b64` is longer than the message.)
@Suite struct TapLogTailTests {
    /// The encoder's tap line for the plain line `line` read with the export's test, and
    /// whether the tail was copied.
    static func tapLine(_ line: String, maxLineBytes: Int = BridgeArchiveFormat.maxLineBytes) -> (encoded: [UInt8], copied: [UInt8]?)? {
        let bytes = Array(line.utf8)
        return bytes.withUnsafeBytes { b -> ([UInt8], [UInt8]?)? in
            guard let f = ArchiveInterpreter.plainFields(b, accept: TapLogExporter.acceptsVerbatim) else { return nil }
            var encoder = ArchiveLineEncoder()
            encoder.maxLineBytes = maxLineBytes
            var encoded: [UInt8] = []
            let p = UnsafeRawBufferPointer(rebasing: b[f.msg])
            if encoder.tapRecord(time: f.time,
                                 quotedDirection: UnsafeRawBufferPointer(rebasing: b[(f.dir.lowerBound - 1)..<(f.dir.upperBound + 1)]),
                                 quotedConnection: UnsafeRawBufferPointer(rebasing: b[(f.conn.lowerBound - 1)..<(f.conn.upperBound + 1)]),
                                 payload: p, encoding: f.accepted ? .message : ArchivePayloadEncoding.preferred(for: p, inLine: true),
                                 into: &encoded) {
                encoded.append(0x0A)
            }
            let copied = TapLogExporter.verbatimTail(b, f, maxLineBytes: maxLineBytes).map { [UInt8(ascii: "{")] + Array(b[$0...]) + [0x0A] }
            return (encoded, copied)
        }
    }

    static func line(t: String, dir: String = "w2h", conn: String = "c1", msg: String = #"{"type":"request","id":"r1"}"#) -> String {
        #"{"seq":7,"t":\#(t),"dir":"\#(dir)","conn":"\#(conn)","msg":\#(msg)}"#
    }

    @Test("lines in the writer's layout are copied, byte for byte what the encoder writes", arguments: [
        "1795000000000065435", "0", "5", "-5", "-1795000000000065435", "9223372036854775807", "-9223372036854775808",
    ])
    func copiedAsEncoded(t: String) throws {
        for msg in [#"{}"#, #"[1,2]"#, #"{"a":"é","b":[true,null,-0.5e3]}"#] {
            for conn in ["c1", "", "a b", "0123456789abcdef0123"] {
                let (encoded, copied) = try #require(Self.tapLine(Self.line(t: t, conn: conn, msg: msg)))
                #expect(copied == encoded, "t \(t) conn \(conn) msg \(msg)")
            }
        }
    }

    @Test("other lines are encoded: -0, spaces, members after msg or in another order, text messages, a message over the budget")
    func othersEncoded() throws {
        let encodedOnly = [
            Self.line(t: "-0"),
            #"{"seq":7,"t":5,"dir":"w2h","conn":"c1","msg": {"a":1}}"#,
            #"{"seq":7,"t":5,"dir":"w2h","conn":"c1","msg":{"a":1} }"#,
            #"{"seq":7,"t":5,"dir":"w2h","conn":"c1","msg":{"a":1},"x":1}"#,
            #"{"t":5,"seq":7,"dir":"w2h","conn":"c1","msg":{"a":1}}"#,
            #"{"seq":7,"t":5,"conn":"c1","dir":"w2h","msg":{"a":1}}"#,
            #"{"seq":7,"t":5,"dir":"w2h","conn":"c1","msg":{"a":1,}}"#,
            #"{"seq":7,"t":5,"dir":"w2h","conn":"c1","msg":"text"}"#,
        ]
        for line in encodedOnly {
            guard let (encoded, copied) = Self.tapLine(line) else { continue }  // not a plain line at all
            #expect(copied == nil, "\(line)")
            #expect(!encoded.isEmpty || line.contains("msg\":\"text"))
        }
        // What comes before `"t"` is not copied: spaces there change nothing.
        let (spaced, copiedSpaced) = try #require(Self.tapLine(#"{"seq":7, "t":5,"dir":"w2h","conn":"c1","msg":{"a":1}}"#))
        #expect(copiedSpaced == spaced)
        // Over the budget the encoder writes no line (`b64` is longer still): nor does the copy.
        let long = Self.line(t: "5", msg: #"{"a":""# + String(repeating: "x", count: 200) + #""}"#)
        let (small, copied) = try #require(Self.tapLine(long, maxLineBytes: 200))
        #expect(copied == nil)
        #expect(small.isEmpty)
        let (fits, copiedFits) = try #require(Self.tapLine(long, maxLineBytes: 300))
        #expect(copiedFits == fits)
    }

    @Test("at the edge of the budget the copy and the encoder agree, byte for byte")
    func budgetEdge() throws {
        let line = Self.line(t: "1700000000000000000", msg: #"{"a":""# + String(repeating: "y", count: 100) + #""}"#)
        var copies = 0
        for limit in 100...220 {
            let (encoded, copied) = try #require(Self.tapLine(line, maxLineBytes: limit))
            if let copied {
                copies += 1
                #expect(copied == encoded, "limit \(limit)")
            } else {
                #expect(encoded.isEmpty, "limit \(limit): the encoder wrote a line the copy did not")
            }
        }
        #expect(copies > 0 && copies < 121)
    }
}
