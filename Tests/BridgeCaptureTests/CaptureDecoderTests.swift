import BridgeCapture
import BridgePcap
import BridgeProxy
import BridgeWebSocket
import Testing

/// End to end on synthetic captures: handshake, permessage-deflate, fragmentation,
/// control frames, segment boundaries anywhere, loss, reordering, many connections.
struct CaptureDecoderTests {
    static let id = "127.0.0.1:50412-127.0.0.1:8787"

    /// A session with messages both ways: single frames, many frames per segment, a
    /// frame split over segments, a fragmented message, pings in between.
    static func session(deflate: DeflateAgreement?, count: Int = 12) throws -> WebSocketSession {
        var s = try WebSocketSession(deflate: deflate)
        s.handshake()
        for i in 0..<count {
            let request = try s.frames(fromClient: true, WebSocketSession.envelope(i))
            // Built in wire order: what the client sends in the same segment comes first.
            var clientExtra: [UInt8] = []
            if i % 4 == 1 {
                clientExtra = s.control(fromClient: true, .ping, [1, 2]) + (try s.frames(fromClient: true, WebSocketSession.envelope(1000 + i, "event")))
            } else if i % 4 == 3 {
                clientExtra = try s.frames(fromClient: true, WebSocketSession.envelope(2000 + i, "event"), fragments: 3)
            }
            let response = try s.frames(fromClient: false, WebSocketSession.envelope(i, "response", extra: #","pad":"\#(String(repeating: "x", count: i * 40))""#))
            switch i % 4 {
            case 0:
                s.send(fromClient: true, request)
                s.send(fromClient: false, response)
            case 1:  // several frames in one segment, a ping among them
                s.send(fromClient: true, request + clientExtra)
                s.send(fromClient: false, s.control(fromClient: false, .pong, [1, 2]) + response)
            case 2:  // frames cut across segments at odd places
                s.send(fromClient: true, request, segmentSize: 7)
                s.send(fromClient: false, response, segmentSize: 3)
            default:  // a fragmented message after a whole one
                s.send(fromClient: true, request + clientExtra)
                s.send(fromClient: false, response)
            }
        }
        s.close()
        return s
    }

    static let agreements: [DeflateAgreement?] = [
        nil,
        DeflateAgreement(),
        DeflateAgreement(serverNoContextTakeover: true, clientNoContextTakeover: true),
        DeflateAgreement(serverNoContextTakeover: true, clientNoContextTakeover: false, serverMaxWindowBits: 10, clientMaxWindowBits: 12),
    ]

    @Test(arguments: 0..<agreements.count)
    func handshakeThenMessagesBothWays(_ index: Int) throws {
        let s = try Self.session(deflate: Self.agreements[index])
        let (out, decoder) = WebSocketSession.decode(s.packets)
        let messages = out.messages
        #expect(messages.count == s.sent.count)
        #expect(messages.map(\.text) == s.sent.map(\.text))
        #expect(messages.map(\.direction) == s.sent.map(\.direction))
        #expect(messages.allSatisfy { $0.connection == Self.id })
        #expect(out.first == .open(time: 4000, connection: Self.id, endpoints: ConnectionEndpoints(
            client: Endpoint(address: .v4(PacketBuilder.localhost), port: 50412),
            server: Endpoint(address: .v4(PacketBuilder.localhost), port: 8787))))
        guard case .close(_, let conn, let reason) = out.last else {
            Issue.record("no close event: \(out.kinds)")
            return
        }
        #expect(conn == Self.id)
        #expect(reason.contains("FIN both ways") && reason.contains("1000 (normal)"))
        #expect(out.errors.isEmpty, "\(out.errors)")
        #expect(decoder.statistics.connections == 1)
        #expect(decoder.connectionCount == 0)
    }

    @Test(arguments: [1, 2, 5, 13, 100, 1460, 65_000])
    func anySegmentationGivesTheSameMessages(_ size: Int) throws {
        var s = try WebSocketSession(deflate: DeflateAgreement())
        s.handshake()
        var client: [UInt8] = [], server: [UInt8] = []
        for i in 0..<20 {
            client += try s.frames(fromClient: true, WebSocketSession.envelope(i), fragments: i % 3 + 1)
            client += s.control(fromClient: true, .ping, [UInt8(i)])
        }
        for i in 0..<20 { server += try s.frames(fromClient: false, WebSocketSession.envelope(i, "response"), compress: i % 2 == 0) }
        s.send(fromClient: true, client, segmentSize: size)
        s.send(fromClient: false, server, segmentSize: size)
        s.close()
        let (out, _) = WebSocketSession.decode(s.packets)
        #expect(out.messages.map(\.text) == s.sent.map(\.text))
        #expect(out.errors.isEmpty && out.gaps.isEmpty)
    }

    @Test func reorderedAndDuplicatedSegmentsGiveTheSameMessages() throws {
        let s = try Self.session(deflate: DeflateAgreement())
        var packets = s.packets
        // Swap neighbours among the data packets and repeat every fifth one.
        for i in stride(from: 6, to: packets.count - 3, by: 3) { packets.swapAt(i, i + 1) }
        var withDuplicates: [[UInt8]] = []
        for (i, p) in packets.enumerated() {
            withDuplicates.append(p)
            if i % 5 == 0 { withDuplicates.append(p) }
        }
        let (out, _) = WebSocketSession.decode(withDuplicates)
        // Each direction keeps its order (how they interleave depends on the reordering).
        for dir in ["w2h", "h2w"] {
            #expect(out.messages.filter { $0.direction == dir }.map(\.text) == s.sent.filter { $0.direction == dir }.map(\.text))
        }
        #expect(out.errors.isEmpty, "\(out.errors)")
        #expect(out.gaps.isEmpty)
    }

    @Test func aLostSegmentIsAGapAndDecodingResumes() throws {
        let s = try Self.session(deflate: nil, count: 8)
        // Packet 5 is the client's first request (after 3 handshake packets and 2 heads).
        let lost = s.packets[5]
        var packets = s.packets
        packets.remove(at: 5)
        let (out, _) = WebSocketSession.decode(packets)
        let lostPayload = lost.count - 14 - 20 - 20
        #expect(out.gaps == [lostPayload])
        // Held client data waits for the loss to be confirmed: compare per direction.
        let expected = Array(s.sent.dropFirst())
        for dir in ["w2h", "h2w"] {
            #expect(out.messages.filter { $0.direction == dir }.map(\.text) == expected.filter { $0.direction == dir }.map(\.text))
        }
        let gapIndex = out.kinds.firstIndex(of: "gap") ?? -1
        if case .gap(_, let conn, let dir, _) = out[gapIndex] {
            #expect(conn == Self.id && dir.rawValue == "w2h")
        }
    }

    @Test func lossUnderContextTakeoverNeverInflatesWrongBytes() throws {
        let s = try Self.session(deflate: DeflateAgreement(), count: 16)
        var packets = s.packets
        packets.remove(at: 7)
        let (out, _) = WebSocketSession.decode(packets)
        let sent = Set(s.sent.map(\.bytes))
        // Everything reported is something that was sent; what cannot be inflated is an error.
        #expect(out.messages.allSatisfy { sent.contains($0.bytes) })
        #expect(out.gaps.count == 1)
        #expect(out.messages.count + out.errors.filter { $0.contains("inflate") }.count >= s.sent.count - 2)
    }

    @Test(arguments: [nil, DeflateAgreement(serverNoContextTakeover: true, clientNoContextTakeover: true)])
    func captureThatStartsMidConnection(_ deflate: DeflateAgreement?) throws {
        let s = try Self.session(deflate: deflate, count: 12)
        // Drop the handshake and the first exchange; start with the client's 2nd request.
        let start = 7
        let (out, decoder) = WebSocketSession.decode(Array(s.packets[start...]))
        let messages = out.messages
        #expect(decoder.statistics.connections == 1)
        #expect(messages.first.map { $0.connection } == Self.id)
        // Every message after the cut is found, in order, with the right direction.
        let expected = Array(s.sent.dropFirst(2))
        #expect(messages.map(\.text) == expected.map(\.text))
        #expect(messages.map(\.direction) == expected.map(\.direction))
    }

    @Test func midConnectionStartInsideAFrameSkipsToTheNextFrame() throws {
        let s = try Self.session(deflate: nil, count: 12)
        // Start at a segment that is the middle of a frame cut into 7-byte segments.
        let firstCut = s.packets.indices.first { i in
            i > 8 && s.packets[i].count == 14 + 20 + 20 + 7
        }!
        let (out, _) = WebSocketSession.decode(Array(s.packets[(firstCut + 2)...]))
        #expect(!out.messages.isEmpty)
        let sent = Set(s.sent.map(\.bytes))
        #expect(out.messages.allSatisfy { sent.contains($0.bytes) })
    }

    @Test func mutatedCapturesNeverCrashOrHang() throws {
        let base = try Self.session(deflate: DeflateAgreement(), count: 8).packets
        var rng = SplitMix64(seed: 2024)
        var messages = 0
        for _ in 0..<300 {
            var packets = base
            for _ in 0..<(1 + Int(rng.next() % 6)) {
                let p = Int(rng.next() % UInt64(packets.count))
                guard !packets[p].isEmpty else { continue }
                switch rng.next() % 4 {
                case 0:  // flip a byte anywhere (headers included)
                    let i = Int(rng.next() % UInt64(packets[p].count))
                    packets[p][i] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
                case 1:  // cut the packet
                    packets[p] = Array(packets[p].prefix(Int(rng.next() % UInt64(packets[p].count))))
                case 2:  // drop it
                    packets.remove(at: p)
                default:  // duplicate it somewhere else
                    packets.insert(packets[p], at: Int(rng.next() % UInt64(packets.count)))
                }
            }
            let (out, _) = WebSocketSession.decode(packets)
            messages += out.messages.count
        }
        #expect(messages > 0)
    }

    @Test func otherTCPTrafficProducesNothing() throws {
        var tcp = Conversation()
        var packets = tcp.handshake()
        packets.append(tcp.send(fromClient: true, Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)))
        packets.append(tcp.send(fromClient: false, Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello".utf8)))
        packets += tcp.close()
        var ssh = Conversation()
        ssh.client.port = 40000
        ssh.server.port = 22
        packets += ssh.handshake()
        packets.append(ssh.send(fromClient: false, Array("SSH-2.0-OpenSSH_9.2\r\n".utf8)))
        var rng = SplitMix64(seed: 7)
        for _ in 0..<200 {
            packets.append(ssh.send(fromClient: rng.next() % 2 == 0, (0..<Int(rng.next() % 1400 + 1)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }))
        }
        let (out, decoder) = WebSocketSession.decode(packets)
        #expect(out.isEmpty, "\(out.kinds)")
        #expect(decoder.statistics.connections == 0)
    }

    @Test func randomTrafficWithoutHandshakeIsNotMistakenForWebSocket() {
        var rng = SplitMix64(seed: 99)
        var packets: [[UInt8]] = []
        for c in 0..<20 {
            var tcp = Conversation()
            tcp.client.port = UInt16(30000 + c)
            for _ in 0..<100 {
                packets.append(tcp.send(fromClient: rng.next() % 3 == 0, (0..<Int(rng.next() % 1400 + 1)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }))
            }
        }
        let (out, _) = WebSocketSession.decode(packets)
        #expect(out.messages.isEmpty)
        #expect(out.filter { if case .open = $0 { return true } else { return false } }.isEmpty)
    }

    @Test func probationEndsAfterItsByteBudget() throws {
        var rng = SplitMix64(seed: 5)
        var s = try WebSocketSession(deflate: nil)
        // No handshake: 40 kB of noise from the server, then real frames.
        for _ in 0..<40 {
            s.packets.append(s.tcp.send(fromClient: false, (0..<1000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }))
        }
        for i in 0..<3 {
            s.send(fromClient: true, try s.frames(fromClient: true, WebSocketSession.envelope(i)))
            s.send(fromClient: false, try s.frames(fromClient: false, WebSocketSession.envelope(i, "response")))
        }
        // Within the budget the frames after the noise are found...
        let (found, _) = WebSocketSession.decode(s.packets)
        #expect(found.messages.count == 6)
        #expect(found.errors == ["server: frames found again after 40000 undecodable bytes"])
        // ...past it the server side is given up on before they come. The client side has
        // no noise, so the connection is still recognised from it.
        let (limited, _) = WebSocketSession.decode(s.packets, limits: CaptureLimits(maxProbationBytes: 20_000))
        #expect(limited.messages.map(\.direction) == ["w2h", "w2h", "w2h"])
        // Noise both ways past the budget: the connection is set aside, nothing is reported.
        var both = try WebSocketSession(deflate: nil)
        for i in 0..<60 {
            both.packets.append(both.tcp.send(fromClient: i % 2 == 0, (0..<1000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }))
        }
        both.send(fromClient: true, try both.frames(fromClient: true, WebSocketSession.envelope(1)))
        let (none, _) = WebSocketSession.decode(both.packets, limits: CaptureLimits(maxProbationBytes: 20_000))
        #expect(none.isEmpty)
    }

    @Test func keepAliveRequestsBeforeTheUpgrade() throws {
        var s = try WebSocketSession(deflate: nil)
        s.packets += s.tcp.handshake()
        s.packets.append(s.tcp.send(fromClient: true, Array("GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n".utf8)))
        s.packets.append(s.tcp.send(fromClient: false, Array("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n<html></ht".utf8)))
        s.packets.append(s.tcp.send(fromClient: false, Array("m".utf8)))
        let upgrade = "GET /bridge HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n\r\n"
        s.packets.append(s.tcp.send(fromClient: true, Array(upgrade.utf8)))
        s.packets.append(s.tcp.send(fromClient: false, Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n".utf8)
            + (try s.frames(fromClient: false, WebSocketSession.envelope(1, "event")))))
        s.send(fromClient: true, try s.frames(fromClient: true, WebSocketSession.envelope(2)))
        let (out, _) = WebSocketSession.decode(s.packets)
        #expect(out.messages.map(\.text) == s.sent.map(\.text))
        #expect(out.messages.map(\.direction) == ["h2w", "w2h"])
    }

    @Test func manyConcurrentConnectionsAndEviction() throws {
        var sessions: [WebSocketSession] = []
        for c in 0..<40 {
            var tcp = Conversation()
            tcp.client.port = UInt16(40000 + c)
            tcp.clientSeq = UInt32(c) &* 0x0100_0000
            var s = try WebSocketSession(deflate: DeflateAgreement(), tcp: tcp)
            s.handshake()
            for i in 0..<5 {
                s.send(fromClient: true, try s.frames(fromClient: true, WebSocketSession.envelope(c * 100 + i)))
                s.send(fromClient: false, try s.frames(fromClient: false, WebSocketSession.envelope(c * 100 + i, "response")))
            }
            s.close()
            sessions.append(s)
        }
        // Interleave the connections packet by packet.
        var interleaved: [[UInt8]] = []
        let longest = sessions.map(\.packets.count).max()!
        for i in 0..<longest { for s in sessions where i < s.packets.count { interleaved.append(s.packets[i]) } }

        let (out, decoder) = WebSocketSession.decode(interleaved)
        #expect(decoder.statistics.connections == 40)
        for (c, s) in sessions.enumerated() {
            let conn = "127.0.0.1:\(40000 + c)-127.0.0.1:8787"
            #expect(out.messages.filter { $0.connection == conn }.map(\.text) == s.sent.map(\.text))
        }

        // A table of 16: the least recently active are evicted, closed, reported; nothing crashes.
        let small = CaptureLimits(maxConnections: 16)
        let (evicted, d2) = WebSocketSession.decode(interleaved, limits: small)
        #expect(d2.statistics.evictions > 0)
        #expect(evicted.contains { if case .close(_, _, let r) = $0 { return r.contains("evicted") } else { return false } })
        let sent = Set(sessions.flatMap { $0.sent.map(\.bytes) })
        #expect(evicted.messages.allSatisfy { sent.contains($0.bytes) })
    }

    @Test func ipv6ConnectionsAndOtherLinkTypes() throws {
        var tcp = Conversation()
        tcp.frame = { ipv4 in
            // Rewrap the IPv4 packet's TCP segment in IPv6 on Linux cooked capture.
            let segment = Array(ipv4[20...])
            let fromClient = segment[0] == 0xC4 && segment[1] == 0xEC  // port 50412
            let (a, b): ((UInt64, UInt64), (UInt64, UInt64)) = fromClient ? ((0, 1), (0, 2)) : ((0, 2), (0, 1))
            return PacketBuilder.sll(PacketBuilder.ipv6(src: a, dst: b, payload: segment), proto: 0x86DD)
        }
        var s = try WebSocketSession(deflate: DeflateAgreement(), tcp: tcp)
        s.handshake()
        s.send(fromClient: true, try s.frames(fromClient: true, WebSocketSession.envelope(1)))
        s.send(fromClient: false, try s.frames(fromClient: false, WebSocketSession.envelope(1, "response")))
        let (out, _) = WebSocketSession.decode(s.packets, linkType: .linuxSLL)
        #expect(out.messages.map(\.text) == s.sent.map(\.text))
        #expect(out.messages.first?.connection == "[::1]:50412-[::2]:8787")
    }

    @Test func portReuseStartsANewConnection() throws {
        var packets: [[UInt8]] = []
        var all: [[UInt8]] = []
        for round in 0..<2 {
            var tcp = Conversation()
            tcp.clientSeq = UInt32(round * 7_000_000 + 1)
            var s = try WebSocketSession(deflate: nil, tcp: tcp)
            s.handshake()
            s.send(fromClient: true, try s.frames(fromClient: true, WebSocketSession.envelope(round)))
            if round == 0 { s.packets += [s.tcp.send(fromClient: true, [], flags: [.fin, .ack])] } else { s.close() }
            packets += s.packets
            all += s.sent.map(\.bytes)
        }
        let (out, decoder) = WebSocketSession.decode(packets)
        #expect(out.messages.map(\.text) == all.map { String(decoding: $0, as: UTF8.self) })
        #expect(decoder.statistics.connections == 2)
        #expect(out.kinds.filter { $0 == "open" }.count == 2)
        #expect(out.kinds.filter { $0 == "close" }.count == 2)
    }
}
