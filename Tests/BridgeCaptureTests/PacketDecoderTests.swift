import BridgeCapture
import BridgePcap
import BridgeProxy
import Testing

/// Link, IP and TCP decoding on synthetic packets of every supported link type.
struct PacketDecoderTests {
    typealias B = PacketBuilder
    static let payload: [UInt8] = Array("hello".utf8)
    static let segment = B.tcp(srcPort: 50412, dstPort: 8787, seq: 7, ack: 9, flags: [.ack, .psh], payload: payload)
    static let v4 = B.ipv4(src: B.localhost, dst: 0x0A00_0001, payload: segment)
    static let v6 = B.ipv6(src: (0, 1), dst: (0x2001_0db8_0000_0000, 0x42), payload: segment)

    static let framings: [(String, LinkType, [UInt8])] = [
        ("Ethernet IPv4", .ethernet, B.ethernet(v4)),
        ("Ethernet IPv6", .ethernet, B.ethernet(v6, etherType: 0x86DD)),
        ("Ethernet 802.1Q", .ethernet, B.ethernet(v4, vlans: [100])),
        ("Ethernet QinQ", .ethernet, B.ethernet(v6, etherType: 0x86DD, vlans: [100, 200])),
        ("SLL", .linuxSLL, B.sll(v4)),
        ("SLL IPv6", .linuxSLL, B.sll(v6, proto: 0x86DD)),
        ("SLL2", .linuxSLL2, B.sll2(v4)),
        ("NULL little-endian", .null, B.null(v4, family: 2)),
        ("NULL big-endian", .null, B.null(v4, family: 2, bigEndian: true)),
        ("NULL IPv6 macOS", .null, B.null(v6, family: 30)),
        ("LOOP", .loop, B.null(v4, family: 2, bigEndian: true)),
        ("LOOP IPv6", .loop, B.null(v6, family: 24, bigEndian: true)),
        ("RAW 12", .raw, v4),
        ("RAW 101", .linktypeRaw, v6),
        ("RAW 14", .rawOpenBSD, v4),
        ("IPV4", .ipv4, v4),
        ("IPV6", .ipv6, v6),
    ]

    @Test(arguments: 0..<framings.count)
    func everyLinkTypeDecodesToTheSameSegment(_ index: Int) throws {
        let (name, type, bytes) = Self.framings[index]
        let decoded = bytes.withUnsafeBytes { PacketDecoder.decode(type, $0) }
        guard case .tcp(let seg) = decoded else {
            Issue.record("\(name): \(decoded)")
            return
        }
        #expect(seg.source.port == 50412 && seg.destination.port == 8787, "\(name)")
        #expect(seg.sequence == 7 && seg.acknowledgment == 9 && seg.flags == [.ack, .psh], "\(name)")
        #expect(Array(bytes[seg.payloadOffset..<(seg.payloadOffset + seg.payloadCount)]) == Self.payload, "\(name)")
        #expect(seg.missingPayload == 0)
    }

    @Test(arguments: 0..<framings.count)
    func everyTruncationIsReportedNotCrashed(_ index: Int) {
        let (name, type, bytes) = Self.framings[index]
        for n in 0..<bytes.count {
            let cut = Array(bytes.prefix(n))
            let decoded = cut.withUnsafeBytes { PacketDecoder.decode(type, $0) }
            switch decoded {
            case .malformed: break
            case .tcp(let seg):
                // Cut inside the payload: what is missing is announced.
                #expect(seg.payloadCount + seg.missingPayload == Self.payload.count, "\(name) cut at \(n)")
            case .skipped(let s):
                Issue.record("\(name) cut at \(n) skipped: \(s)")
            }
        }
    }

    @Test func addressesAndIdentifiers() {
        let v6 = IPAddress.v6(0x2001_0db8_0000_0000, 0x0000_0000_0000_0042)
        #expect(v6.description == "2001:db8::42")
        #expect(IPAddress.v6(0, 1).description == "::1")
        #expect(IPAddress.v4(B.localhost).description == "127.0.0.1")
        let e = ConnectionEndpoints(client: Endpoint(address: .v6(0, 1), port: 50412), server: Endpoint(address: .v6(0, 1), port: 8787))
        #expect(e.description == "[::1]:50412-[::1]:8787")
    }

    @Test func skipsWhatIsNotTCPOverIP() {
        func decode(_ t: LinkType, _ b: [UInt8]) -> DecodedPacket { b.withUnsafeBytes { PacketDecoder.decode(t, $0) } }
        #expect(decode(.ethernet, B.ethernet([0, 1, 8, 0, 6, 4], etherType: 0x0806)) == .skipped(.notIP))
        #expect(decode(.ethernet, B.ethernet(B.ipv4(src: 1, dst: 2, proto: 17, payload: [0, 0, 0, 0, 0, 8, 0, 0]))) == .skipped(.notTCP))
        #expect(decode(LinkType(rawValue: 147), [1, 2, 3]) == .skipped(.unsupportedLinkType))
        #expect(decode(.null, B.null(Self.v4, family: 7)) == .skipped(.notIP))
        // A non-first IPv4 fragment has no TCP header to follow.
        #expect(decode(.raw, B.ipv4(src: 1, dst: 2, payload: [1, 2, 3, 4, 5, 6, 7, 8], fragmentOffset: 185)) == .skipped(.nonFirstFragment))
        // The first fragment is followed; the rest of its bytes are missing to the stream.
        if case .tcp = decode(.raw, B.ipv4(src: 1, dst: 2, payload: Self.segment, moreFragments: true)) {} else {
            Issue.record("first fragment not decoded")
        }
        let frag6 = B.ipv6(src: (0, 1), dst: (0, 2), payload: [0xDE, 0xAD, 0xBE, 0xEF], extensions: [(44, [0, 0x08, 0, 0, 0, 1])])
        #expect(decode(.raw, frag6) == .skipped(.nonFirstFragment))
        let esp = B.ipv6(src: (0, 1), dst: (0, 2), payload: [], extensions: []).enumerated().map { $0.offset == 6 ? UInt8(50) : $0.element }
        #expect(decode(.raw, esp) == .skipped(.opaqueIPv6))
    }

    @Test func followsIPv6ExtensionHeaders() {
        let hopByHop: (UInt8, [UInt8]) = (0, [1, 4, 0, 0, 0, 0])
        let destination: (UInt8, [UInt8]) = (60, [1, 4, 0, 0, 0, 0])
        let routing: (UInt8, [UInt8]) = (43, [0, 0, 0, 0, 0, 0])
        let firstFragment: (UInt8, [UInt8]) = (44, [0, 1, 0, 0, 0, 9])
        let bytes = B.ipv6(src: (0, 1), dst: (0, 2), payload: Self.segment,
                           extensions: [(hopByHop.0, hopByHop.1), (routing.0, routing.1), (firstFragment.0, firstFragment.1), (destination.0, destination.1)])
        let decoded = bytes.withUnsafeBytes { PacketDecoder.decode(.raw, $0) }
        guard case .tcp(let seg) = decoded else {
            Issue.record("\(decoded)")
            return
        }
        #expect(Array(bytes[seg.payloadOffset...]) == Self.payload)
        // More extension headers than the limit: malformed, not a loop.
        let many = Array(repeating: hopByHop, count: PacketDecoder.maxIPv6ExtensionHeaders + 1).map { (type: $0.0, body: $0.1) }
        let deep = B.ipv6(src: (0, 1), dst: (0, 2), payload: Self.segment, extensions: many)
        if case .malformed = deep.withUnsafeBytes({ PacketDecoder.decode(.raw, $0) }) {} else { Issue.record("deep chain accepted") }
    }

    @Test func rejectsLyingHeaders() {
        func problem(_ b: [UInt8]) -> String? {
            if case .malformed(let p) = b.withUnsafeBytes({ PacketDecoder.decode(.raw, $0) }) { return p.description }
            return nil
        }
        var badIHL = Self.v4
        badIHL[0] = 0x44
        #expect(problem(badIHL)?.contains("below 20") == true)
        var longIHL = Self.v4
        longIHL[0] = 0x4F
        #expect(problem(Array(longIHL.prefix(40)))?.contains("exceeds") == true)
        var shortTotal = Self.v4
        shortTotal[2] = 0
        shortTotal[3] = 10
        #expect(problem(shortTotal)?.contains("total length") == true)
        var badOffset = Self.v4
        badOffset[20 + 12] = 0x30
        #expect(problem(badOffset)?.contains("data offset") == true)
        var hugeOffset = Self.v4
        hugeOffset[20 + 12] = 0xF0
        #expect(problem(hugeOffset)?.contains("header length 60") == true)
        // Ethernet padding after the IP total length is ignored.
        let padded = B.ethernet(Self.v4 + [0, 0, 0, 0])
        if case .tcp(let seg) = padded.withUnsafeBytes({ PacketDecoder.decode(.ethernet, $0) }) {
            #expect(seg.payloadCount == Self.payload.count)
        } else { Issue.record("padded frame not decoded") }
    }

    @Test func randomBytesNeverCrash() {
        var rng = SplitMix64(seed: 42)
        let types: [LinkType] = [.ethernet, .linuxSLL, .linuxSLL2, .null, .loop, .raw, .ipv4, .ipv6]
        var counts = [0, 0, 0]
        for i in 0..<20_000 {
            var bytes = (0..<Int(rng.next() % 120)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            // Half the time start from a valid packet with a few bytes flipped.
            if i % 2 == 0 {
                bytes = B.ethernet(Self.v4)
                for _ in 0..<3 { bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next()) }
            }
            let decoded = bytes.withUnsafeBytes { PacketDecoder.decode(types[i % types.count], $0) }
            switch decoded {
            case .tcp(let s):
                #expect(s.payloadOffset + s.payloadCount <= bytes.count)
                counts[0] += 1
            case .skipped: counts[1] += 1
            case .malformed: counts[2] += 1
            }
        }
        #expect(counts.allSatisfy { $0 > 0 })
    }
}

