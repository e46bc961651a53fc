import BridgeCapture
import BridgePcap
import BridgeProxy

/// Builds synthetic packets, layer by layer, for the decoder tests.
enum PacketBuilder {
    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    /// A TCP header (20 bytes, or more with `options` bytes) followed by `payload`.
    static func tcp(srcPort: UInt16, dstPort: UInt16, seq: UInt32, ack: UInt32 = 0, flags: TCPFlags,
                    payload: [UInt8] = [], options: [UInt8] = []) -> [UInt8] {
        precondition(options.count % 4 == 0)
        let dataOffset = UInt8((20 + options.count) / 4)
        var h = be16(srcPort) + be16(dstPort) + be32(seq) + be32(ack)
        h += [dataOffset << 4, flags.rawValue] + be16(65535) + [0, 0, 0, 0]
        return h + options + payload
    }

    /// An IPv4 header (20 bytes) around `payload`.
    static func ipv4(src: UInt32, dst: UInt32, proto: UInt8 = 6, payload: [UInt8], fragmentOffset: UInt16 = 0,
                     moreFragments: Bool = false, totalLength: Int? = nil) -> [UInt8] {
        let total = UInt16(totalLength ?? (20 + payload.count))
        let frag = (moreFragments ? 0x2000 : 0) | fragmentOffset
        return [0x45, 0] + be16(total) + [0x12, 0x34] + be16(frag) + [64, proto, 0, 0] + be32(src) + be32(dst) + payload
    }

    /// An IPv6 header around `payload`, with optional extension headers given as
    /// (next-header value of the extension, its bytes after the first two).
    static func ipv6(src: (UInt64, UInt64), dst: (UInt64, UInt64), payload: [UInt8],
                     extensions: [(type: UInt8, body: [UInt8])] = []) -> [UInt8] {
        var chain: [UInt8] = []
        let types = extensions.map(\.type) + [6]
        for (i, ext) in extensions.enumerated() {
            let total = 2 + ext.body.count
            precondition(total % 8 == 0)
            chain += [types[i + 1], UInt8(total / 8 - 1)] + ext.body
        }
        let body = chain + payload
        var h: [UInt8] = [0x60, 0, 0, 0] + be16(UInt16(body.count)) + [types[0], 64]
        for half in [src.0, src.1, dst.0, dst.1] {
            h += be32(UInt32(half >> 32)) + be32(UInt32(half & 0xFFFF_FFFF))
        }
        return h + body
    }

    static func ethernet(_ payload: [UInt8], etherType: UInt16 = 0x0800, vlans: [UInt16] = []) -> [UInt8] {
        var h = [UInt8](repeating: 0, count: 12)
        for v in vlans { h += be16(0x8100) + be16(v) }
        return h + be16(etherType) + payload
    }

    static func sll(_ payload: [UInt8], proto: UInt16 = 0x0800) -> [UInt8] {
        [0, 0, 0, 1, 0, 6] + [UInt8](repeating: 0xAA, count: 8) + be16(proto) + payload
    }

    static func sll2(_ payload: [UInt8], proto: UInt16 = 0x0800) -> [UInt8] {
        be16(proto) + [0, 0] + be32(1) + [0, 1, 0, 6] + [UInt8](repeating: 0xAA, count: 8) + payload
    }

    static func null(_ payload: [UInt8], family: UInt32, bigEndian: Bool = false) -> [UInt8] {
        (bigEndian ? be32(family) : Array(be32(family).reversed())) + payload
    }

    static let localhost: UInt32 = 0x7F00_0001
}

/// A scripted TCP connection over IPv4 on Ethernet (or another framing), keeping each
/// side's sequence numbers, producing packets the way a capture would see them.
struct Conversation {
    var client: (ip: UInt32, port: UInt16) = (PacketBuilder.localhost, 50412)
    var server: (ip: UInt32, port: UInt16) = (PacketBuilder.localhost, 8787)
    var clientSeq: UInt32 = 1000
    var serverSeq: UInt32 = 500_000
    var frame: ([UInt8]) -> [UInt8] = { PacketBuilder.ethernet($0) }

    func packet(fromClient: Bool, seq: UInt32, ack: UInt32, flags: TCPFlags, payload: [UInt8]) -> [UInt8] {
        let (s, d) = fromClient ? (client, server) : (server, client)
        let tcp = PacketBuilder.tcp(srcPort: s.port, dstPort: d.port, seq: seq, ack: ack, flags: flags, payload: payload)
        return frame(PacketBuilder.ipv4(src: s.ip, dst: d.ip, payload: tcp))
    }

    mutating func handshake() -> [[UInt8]] {
        let a = packet(fromClient: true, seq: clientSeq, ack: 0, flags: .syn, payload: [])
        let b = packet(fromClient: false, seq: serverSeq, ack: clientSeq &+ 1, flags: [.syn, .ack], payload: [])
        clientSeq &+= 1
        serverSeq &+= 1
        let c = packet(fromClient: true, seq: clientSeq, ack: serverSeq, flags: .ack, payload: [])
        return [a, b, c]
    }

    /// One data segment; advances the sender's sequence number.
    mutating func send(fromClient: Bool, _ payload: [UInt8], flags: TCPFlags = [.ack, .psh]) -> [UInt8] {
        let seq = fromClient ? clientSeq : serverSeq
        let ack = fromClient ? serverSeq : clientSeq
        let p = packet(fromClient: fromClient, seq: seq, ack: ack, flags: flags, payload: payload)
        if fromClient { clientSeq &+= UInt32(payload.count) } else { serverSeq &+= UInt32(payload.count) }
        if flags.contains(.fin) { if fromClient { clientSeq &+= 1 } else { serverSeq &+= 1 } }
        return p
    }

    mutating func close() -> [[UInt8]] {
        [send(fromClient: true, [], flags: [.fin, .ack]), send(fromClient: false, [], flags: [.fin, .ack])]
    }
}
