/// Reads link-layer headers down to the IP packet they carry. Pure functions over the
/// captured bytes; every offset is checked against the captured length.
enum LinkLayer {
    /// Most 802.1Q / 802.1ad tags followed in one Ethernet header (QinQ uses two).
    static let maxVLANTags = 4

    /// Where the network layer starts, or why there is none.
    public enum Result: Sendable, Hashable {
        /// An IPv4 (`version` 4) or IPv6 (`version` 6) packet starting at `offset`.
        case ip(version: UInt8, offset: Int)
        /// Not IP, or an unsupported link type.
        case skipped(PacketSkip)
        /// The link header is cut short.
        case malformed(PacketProblem)
    }

    /// Finds the IP packet in `bytes` (one captured packet of link type `type`).
    public static func decode(_ type: LinkType, _ bytes: UnsafeRawBufferPointer) -> Result {
        switch type {
        case .ethernet: return ethernet(bytes)
        case .linuxSLL: return cooked(bytes, headerLength: 16, protocolOffset: 14, layer: "Linux SLL")
        case .linuxSLL2: return cooked(bytes, headerLength: 20, protocolOffset: 0, layer: "Linux SLL2")
        case .null: return loopback(bytes, networkOrder: false, layer: "NULL")
        case .loop: return loopback(bytes, networkOrder: true, layer: "LOOP")
        case .raw, .rawOpenBSD, .linktypeRaw: return raw(bytes)
        case .ipv4: return raw(bytes, expect: 4)
        case .ipv6: return raw(bytes, expect: 6)
        default: return .skipped(.unsupportedLinkType)
        }
    }

    /// Ethernet II with any number (up to ``maxVLANTags``) of 802.1Q/802.1ad tags.
    static func ethernet(_ b: UnsafeRawBufferPointer) -> Result {
        guard b.count >= 14 else {
            return .malformed(PacketProblem(layer: "Ethernet", offset: 0, reason: "header needs 14 bytes, \(b.count) captured"))
        }
        var typeOffset = 12
        var tags = 0
        while true {
            let etherType = b.be16(typeOffset)
            switch etherType {
            case 0x8100, 0x88A8, 0x9100:
                tags += 1
                guard tags <= maxVLANTags else {
                    return .malformed(PacketProblem(layer: "Ethernet", offset: typeOffset, reason: "more than \(maxVLANTags) VLAN tags"))
                }
                guard b.count >= typeOffset + 6 else {
                    return .malformed(PacketProblem(layer: "802.1Q", offset: typeOffset, reason: "VLAN tag cut short (\(b.count) bytes captured)"))
                }
                typeOffset += 4
            default:
                return network(etherType: etherType, offset: typeOffset + 2, b)
            }
        }
    }

    /// Linux cooked capture: the protocol field is an EtherType for IP.
    static func cooked(_ b: UnsafeRawBufferPointer, headerLength: Int, protocolOffset: Int, layer: String) -> Result {
        guard b.count >= headerLength else {
            return .malformed(PacketProblem(layer: layer, offset: 0, reason: "header needs \(headerLength) bytes, \(b.count) captured"))
        }
        return network(etherType: b.be16(protocolOffset), offset: headerLength, b)
    }

    /// DLT_NULL (host byte order of the capturing machine, so either order is accepted)
    /// and DLT_LOOP (network order). Address-family values for IPv6 differ by system:
    /// 10 (Linux), 24 (NetBSD, OpenBSD), 28 (FreeBSD), 30 (macOS).
    static func loopback(_ b: UnsafeRawBufferPointer, networkOrder: Bool, layer: String) -> Result {
        guard b.count >= 4 else {
            return .malformed(PacketProblem(layer: layer, offset: 0, reason: "header needs 4 bytes, \(b.count) captured"))
        }
        var family = networkOrder ? b.be32(0) : b.le32(0)
        if !networkOrder && family & 0xFFFF_0000 != 0 { family = b.be32(0) }
        switch family {
        case 2: return ipVersion(b, offset: 4, expect: 4, layer: layer)
        case 10, 24, 28, 30: return ipVersion(b, offset: 4, expect: 6, layer: layer)
        default: return .skipped(.notIP)
        }
    }

    /// Raw IP: the version nibble says which.
    static func raw(_ b: UnsafeRawBufferPointer, expect: UInt8? = nil) -> Result {
        guard b.count >= 1 else {
            return .malformed(PacketProblem(layer: "raw IP", offset: 0, reason: "empty packet"))
        }
        let version = b[0] >> 4
        if let expect, version != expect {
            return .malformed(PacketProblem(layer: "raw IP", offset: 0, reason: "IP version \(version), link type says \(expect)"))
        }
        guard version == 4 || version == 6 else {
            return .malformed(PacketProblem(layer: "raw IP", offset: 0, reason: "IP version \(version)"))
        }
        return .ip(version: version, offset: 0)
    }

    static func network(etherType: UInt16, offset: Int, _ b: UnsafeRawBufferPointer) -> Result {
        switch etherType {
        case 0x0800: return ipVersion(b, offset: offset, expect: 4, layer: "Ethernet")
        case 0x86DD: return ipVersion(b, offset: offset, expect: 6, layer: "Ethernet")
        default: return .skipped(.notIP)
        }
    }

    static func ipVersion(_ b: UnsafeRawBufferPointer, offset: Int, expect: UInt8, layer: String) -> Result {
        guard b.count > offset else {
            return .malformed(PacketProblem(layer: layer, offset: offset, reason: "no IP header captured"))
        }
        let version = b[offset] >> 4
        guard version == expect else {
            return .malformed(PacketProblem(layer: expect == 4 ? "IPv4" : "IPv6", offset: offset,
                                            reason: "version field is \(version), link layer says \(expect)"))
        }
        return .ip(version: version, offset: offset)
    }
}
