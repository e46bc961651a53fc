import BridgeWebSocket
import Testing

struct AssemblerTests {
    typealias H = MessageAssembler.FrameHeader

    @Test func wholeAndFragmentedMessages() {
        var a = MessageAssembler(maxMessageBytes: 10, deflate: false, requireMasking: true)
        #expect(a.receive(header: H(fin: true, opcode: .text, masked: true), payload: [65]) == .message(text: true, compressed: false, payload: [65]))
        #expect(a.receive(header: H(fin: false, opcode: .text, masked: true), payload: [1, 2]) == .none)
        #expect(a.receive(header: H(fin: true, opcode: .ping, masked: true), payload: [9]) == .ping([9]))
        #expect(a.receive(header: H(fin: true, opcode: .continuation, masked: true), payload: [3]) == .message(text: true, compressed: false, payload: [1, 2, 3]))
    }

    @Test func limitsAndViolations() {
        let base = MessageAssembler(maxMessageBytes: 4, deflate: false, requireMasking: true)
        var a = base
        if case .fail(let code, _) = a.receive(header: H(fin: true, opcode: .text, masked: true), payload: [1, 2, 3, 4, 5]) {
            #expect(code == .messageTooBig)
        } else { Issue.record("expected 1009") }
        a = base
        if case .fail(let code, _) = a.receive(header: H(fin: true, opcode: .text, masked: false), payload: []) {
            #expect(code == .protocolError)
        } else { Issue.record("expected 1002") }
        a = base
        if case .fail(let code, _) = a.receive(header: H(fin: true, opcode: MessageAssembler.Opcode(rawValue: 3), masked: true), payload: []) {
            #expect(code == .protocolError)
        } else { Issue.record("expected 1002") }
        a = base
        #expect(a.receive(header: H(fin: true, opcode: .close, masked: true), payload: [0x03, 0xE8]) == .peerClosed(code: .normal, reason: ""))
    }

    @Test func negotiation() {
        let a = DeflateAgreement.negotiate(offerHeader: "permessage-deflate; client_max_window_bits")
        #expect(a?.responseHeader == "permessage-deflate")
        let b = DeflateAgreement.negotiate(offerHeader: "permessage-deflate; server_max_window_bits=8, permessage-deflate; server_no_context_takeover")
        #expect(b?.serverNoContextTakeover == true)
        #expect(b?.responseHeader == "permessage-deflate; server_no_context_takeover")
        #expect(DeflateAgreement.negotiate(offerHeader: "x-webkit-deflate-frame") == nil)
        #expect(DeflateAgreement.negotiate(offerHeader: "permessage-deflate; bogus=1") == nil)
    }

    @Test func deflateRoundTripWithAndWithoutContextTakeover() throws {
        for reset in [false, true] {
            let ag = DeflateAgreement(serverNoContextTakeover: reset, clientNoContextTakeover: reset, serverMaxWindowBits: 15, clientMaxWindowBits: 15)
            let server = try PerMessageDeflate(agreement: ag, maxMessageBytes: 1 << 20, isServer: true)
            let client = try PerMessageDeflate(agreement: ag, maxMessageBytes: 1 << 20, isServer: false)
            for i in 0..<20 {
                let msg = Array("{\"i\":\(i),\"s\":\"\(String(repeating: "é", count: i * 50))\"}".utf8)
                #expect(try client.inflate(server.deflate(msg)) == msg)
                #expect(try server.inflate(client.deflate(msg)) == msg)
            }
        }
    }

    @Test func corruptAndOversizedInflation() throws {
        let ag = DeflateAgreement(serverNoContextTakeover: false, clientNoContextTakeover: false, serverMaxWindowBits: 15, clientMaxWindowBits: 15)
        let small = try PerMessageDeflate(agreement: ag, maxMessageBytes: 1000, isServer: true)
        let big = try PerMessageDeflate(agreement: ag, maxMessageBytes: 1 << 24, isServer: false)
        let bomb = try big.deflate(Array(repeating: 0, count: 1 << 20))
        #expect(throws: DeflateError.self) { try small.inflate(bomb) }
        let other = try PerMessageDeflate(agreement: ag, maxMessageBytes: 1000, isServer: true)
        #expect(throws: DeflateError.self) { try other.inflate([0xFF, 0xFF, 0xFF, 0xFF, 0x13]) }
    }
}

/// A sender may end a message's DEFLATE stream with a final block (RFC 7692 §7.2.3.3);
/// the inflater must not spin on the tail it appends (found by the fuzzer).
struct FinalBlockTests {
    @Test func finalDeflateBlockInflatesAndTheNextMessageStillWorks() throws {
        let codec = try PerMessageDeflate(agreement: DeflateAgreement(), maxMessageBytes: 1 << 20, isServer: true)
        // "hello" as a raw DEFLATE stream with BFINAL set (zlib -15, Z_FINISH), then the same again.
        let finalBlock: [UInt8] = [0xCB, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]
        #expect(try codec.inflate(finalBlock) == Array("hello".utf8))
        #expect(try codec.inflate(finalBlock) == Array("hello".utf8))
        #expect(throws: DeflateError.self) { try codec.inflate(finalBlock + [1, 2, 3, 4, 5, 6, 7, 8]) }
    }
}
