import BridgeWebSocket
import Testing

/// The incremental frame parser: any split of the input gives the same frames; limits
/// are checked before buffering; malformed lengths throw with the offset.
struct FrameParserTests {
    static let frames: [[UInt8]] = [
        WebSocketFrameHeader.encode(opcode: .text, maskKey: 0x1234_5678, payload: Array("hello".utf8)),
        WebSocketFrameHeader.encode(opcode: .text, payload: Array(repeating: 0x61, count: 126)),
        WebSocketFrameHeader.encode(fin: false, opcode: .binary, maskKey: 0xDEAD_BEEF, payload: Array(repeating: 7, count: 70_000)),
        WebSocketFrameHeader.encode(opcode: .ping, payload: []),
        WebSocketFrameHeader.encode(opcode: .continuation, maskKey: 1, payload: [1, 2, 3]),
    ]
    static let payloads: [[UInt8]] = [Array("hello".utf8), Array(repeating: 0x61, count: 126), Array(repeating: 7, count: 70_000), [], [1, 2, 3]]
    static let stream: [UInt8] = frames.flatMap { $0 }

    func parseAll(_ chunks: [ArraySlice<UInt8>], max: Int = WebSocketFrameParser.defaultMaxFrameSize) throws -> [ParsedWebSocketFrame] {
        var p = WebSocketFrameParser(maxFrameSize: max)
        var out: [ParsedWebSocketFrame] = []
        for c in chunks {
            p.append(contentsOf: c)
            while let f = try p.next() { out.append(f) }
        }
        #expect(p.bufferedByteCount == 0)
        return out
    }

    func check(_ frames: [ParsedWebSocketFrame]) {
        #expect(frames.map(\.payload) == Self.payloads)
        #expect(frames.map(\.header.bits.opcode) == [.text, .text, .binary, .ping, .continuation])
        #expect(frames.map(\.header.bits.masked) == [true, false, true, false, true])
        #expect(frames.map(\.header.headerLength) == [6, 4, 14, 2, 6])
        #expect(frames.allSatisfy { $0.header.minimalLength })
        var offset = 0
        for (f, raw) in zip(frames, Self.frames) {
            #expect(f.streamOffset == offset)
            offset += raw.count
        }
    }

    @Test func wholeInput() throws {
        try check(parseAll([Self.stream[...]]))
    }

    @Test func byteByByte() throws {
        try check(parseAll(Self.stream.indices.map { Self.stream[$0...$0] }))
    }

    @Test func splitAtEveryOffsetOfTheHeaders() throws {
        // Every split point in the first 300 bytes (all header shapes) and a sample after.
        for cut in Array(0...300) + stride(from: 301, to: Self.stream.count, by: 997) {
            try check(parseAll([Self.stream[..<cut], Self.stream[cut...]]))
        }
    }

    @Test func announcedSizeIsCheckedBeforeThePayloadArrives() {
        var p = WebSocketFrameParser(maxFrameSize: 1000)
        p.append(contentsOf: [0x82, 0x7E, 0x03, 0xE9])  // 1001 bytes announced, none sent
        #expect(throws: WebSocketFrameError.self) { try p.next() }
        do {
            _ = try p.next()
        } catch {
            #expect(error.kind == .frameTooLarge)
            #expect(error.offset == 0)
        }
        p.reset()
        p.append(contentsOf: [0x81, 0x03, 0x61, 0x62, 0x63])
        #expect((try? p.next())?.payload == Array("abc".utf8))
    }

    @Test func invalidSixtyFourBitLengthThrows() {
        var p = WebSocketFrameParser()
        p.append(contentsOf: [0x81, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 1])
        #expect(throws: WebSocketFrameError.self) { try p.next() }
        #expect(p.takeBufferedBytes().count == 10)
        #expect(p.streamOffset == 10)
    }

    @Test func nonMinimalLengthsAreFlagged() {
        let bytes: [UInt8] = [0x81, 0x7E, 0x00, 0x05] + Array("hello".utf8)
        if case .header(let h) = bytes.withUnsafeBytes({ WebSocketFrameHeader.peek($0) }) {
            #expect(!h.minimalLength)
            #expect(h.payloadLength == 5)
        } else { Issue.record("not a header") }
    }

    @Test func unmaskingAtAnyPhaseAndLength() {
        for n in 0..<40 {
            for phase in 0..<4 {
                let original = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37) }
                var data = original
                data.withUnsafeMutableBytes { WebSocketFrameHeader.unmask($0, key: 0xA1B2_C3D4, phase: phase) }
                let k: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]
                #expect(data == original.enumerated().map { $0.element ^ k[($0.offset + phase) & 3] })
            }
        }
    }
}
