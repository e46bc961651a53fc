/// Builds Ethernet II / IPv4 / TCP packets with correct lengths and checksums, for the
/// pcapng exporter. Pure.
struct TCPPacketBuilder {
    /// TCP flag bits.
    struct Flags: OptionSet {
        let rawValue: UInt8
        static let fin = Flags(rawValue: 0x01)
        static let syn = Flags(rawValue: 0x02)
        static let psh = Flags(rawValue: 0x08)
        static let ack = Flags(rawValue: 0x10)
    }

    /// Largest TCP payload per packet: 32,768 bytes (IPv4 allows 65,495; loopback
    /// captures show segments of this order).
    static let maxSegmentPayload = 32_768

    /// One packet from `source` to `destination`.
    func packet(from source: (address: UInt32, port: UInt16, mac: UInt8), to destination: (address: UInt32, port: UInt16, mac: UInt8),
                seq: UInt32, ack: UInt32, flags: Flags, ipID: UInt16, payload: ArraySlice<UInt8>) -> [UInt8] {
        var p: [UInt8] = []
        p.reserveCapacity(54 + payload.count)
        // Ethernet: locally administered MACs 02:00:00:00:00:xx.
        p.append(contentsOf: [0x02, 0, 0, 0, 0, destination.mac, 0x02, 0, 0, 0, 0, source.mac, 0x08, 0x00])
        // IPv4.
        let totalLength = 20 + 20 + payload.count
        let ip = 14
        p.append(contentsOf: [0x45, 0, UInt8(totalLength >> 8), UInt8(totalLength & 0xFF),
                              UInt8(ipID >> 8), UInt8(ipID & 0xFF), 0x40, 0, 64, 6, 0, 0])
        be32(source.address, into: &p)
        be32(destination.address, into: &p)
        let ipSum = Self.checksum(p[ip..<(ip + 20)], initial: 0)
        p[ip + 10] = UInt8(ipSum >> 8)
        p[ip + 11] = UInt8(ipSum & 0xFF)
        // TCP.
        let tcp = p.count
        p.append(contentsOf: [UInt8(source.port >> 8), UInt8(source.port & 0xFF),
                              UInt8(destination.port >> 8), UInt8(destination.port & 0xFF)])
        be32(seq, into: &p)
        be32(ack, into: &p)
        p.append(contentsOf: [0x50, flags.rawValue, 0xFF, 0xFF, 0, 0, 0, 0])
        p.append(contentsOf: payload)
        // Pseudo-header: addresses, protocol, TCP length.
        var pseudo: UInt32 = 0
        for a in [source.address, destination.address] { pseudo += a >> 16 + a & 0xFFFF }
        pseudo += 6 + UInt32(20 + payload.count)
        let tcpSum = Self.checksum(p[tcp...], initial: pseudo)
        p[tcp + 16] = UInt8(tcpSum >> 8)
        p[tcp + 17] = UInt8(tcpSum & 0xFF)
        return p
    }

    /// The Internet checksum (RFC 1071) of `bytes` plus `initial`.
    static func checksum(_ bytes: ArraySlice<UInt8>, initial: UInt32) -> UInt16 {
        var sum = UInt64(initial)
        var i = bytes.startIndex
        while i + 1 < bytes.endIndex {
            sum += UInt64(bytes[i]) << 8 | UInt64(bytes[i + 1])
            i += 2
        }
        if i < bytes.endIndex { sum += UInt64(bytes[i]) << 8 }
        while sum >> 16 != 0 { sum = sum & 0xFFFF + sum >> 16 }
        return ~UInt16(sum)
    }

    private func be32(_ v: UInt32, into out: inout [UInt8]) {
        out.append(contentsOf: [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)])
    }
}
