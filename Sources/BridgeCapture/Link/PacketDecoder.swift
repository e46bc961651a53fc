/// Decodes one captured packet down to its TCP segment: link layer (``LinkLayer``),
/// IPv4 or IPv6 with extension headers, TCP header. Pure: no state, no copies.
///
/// Every length read from a header is checked against the captured length; what does
/// not fit is a ``PacketProblem``. The IPv4 header checksum is not verified (captures
/// of locally sent traffic carry checksums the NIC would have filled in), nor is TCP's.
public enum PacketDecoder {
    /// Most IPv6 extension headers followed before giving up on a packet.
    public static let maxIPv6ExtensionHeaders = 8

    /// Decodes `bytes`, one packet as captured, of link type `linkType`.
    public static func decode(_ linkType: LinkType, _ bytes: UnsafeRawBufferPointer) -> DecodedPacket {
        switch LinkLayer.decode(linkType, bytes) {
        case .skipped(let s): return .skipped(s)
        case .malformed(let p): return .malformed(p)
        case .ip(let version, let offset):
            return version == 4 ? ipv4(bytes, offset) : ipv6(bytes, offset)
        }
    }

    static func ipv4(_ b: UnsafeRawBufferPointer, _ o: Int) -> DecodedPacket {
        let captured = b.count - o
        guard captured >= 20 else {
            return .malformed(PacketProblem(layer: "IPv4", offset: o, reason: "header needs 20 bytes, \(captured) captured"))
        }
        let ihl = Int(b[o] & 0x0F) * 4
        guard ihl >= 20 else {
            return .malformed(PacketProblem(layer: "IPv4", offset: o, reason: "header length \(ihl) is below 20"))
        }
        guard captured >= ihl else {
            return .malformed(PacketProblem(layer: "IPv4", offset: o, reason: "header length \(ihl) exceeds the \(captured) bytes captured"))
        }
        var total = Int(b.be16(o + 2))
        if total == 0 { total = captured }  // TCP segmentation offload: length left to the NIC
        guard total >= ihl else {
            return .malformed(PacketProblem(layer: "IPv4", offset: o + 2, reason: "total length \(total) is below the header length \(ihl)"))
        }
        let fragment = b.be16(o + 6)
        if fragment & 0x1FFF != 0 { return .skipped(.nonFirstFragment) }
        guard b[o + 9] == 6 else { return .skipped(.notTCP) }
        let src = IPAddress.v4(b.be32(o + 12)), dst = IPAddress.v4(b.be32(o + 16))
        return tcp(b, offset: o + ihl, declaredEnd: o + total, src: src, dst: dst)
    }

    static func ipv6(_ b: UnsafeRawBufferPointer, _ o: Int) -> DecodedPacket {
        let captured = b.count - o
        guard captured >= 40 else {
            return .malformed(PacketProblem(layer: "IPv6", offset: o, reason: "header needs 40 bytes, \(captured) captured"))
        }
        var payloadLength = Int(b.be16(o + 4))
        var next = b[o + 6]
        if payloadLength == 0 && next == 0 { payloadLength = captured - 40 }  // jumbogram: length in hop-by-hop option
        let src = IPAddress.v6(b.be64(o + 8), b.be64(o + 16))
        let dst = IPAddress.v6(b.be64(o + 24), b.be64(o + 32))
        var off = o + 40
        let declaredEnd = o + 40 + payloadLength
        for _ in 0...maxIPv6ExtensionHeaders {
            switch next {
            case 6:
                return tcp(b, offset: off, declaredEnd: declaredEnd, src: src, dst: dst)
            case 0, 43, 60, 135, 139, 140, 44, 51:
                guard b.count >= off + 8, declaredEnd >= off + 8 else {
                    return .malformed(PacketProblem(layer: "IPv6", offset: off, reason: "extension header \(next) cut short"))
                }
                let length: Int
                switch next {
                case 44:
                    if b.be16(off + 2) >> 3 != 0 { return .skipped(.nonFirstFragment) }
                    length = 8
                case 51: length = (Int(b[off + 1]) + 2) * 4
                default: length = (Int(b[off + 1]) + 1) * 8
                }
                next = b[off]
                off += length
            case 50, 59:
                return .skipped(.opaqueIPv6)
            default:
                return .skipped(.notTCP)
            }
        }
        return .malformed(PacketProblem(layer: "IPv6", offset: off, reason: "more than \(maxIPv6ExtensionHeaders) extension headers"))
    }

    /// The TCP header at `offset`; `declaredEnd` is where IP says the segment ends.
    static func tcp(_ b: UnsafeRawBufferPointer, offset o: Int, declaredEnd: Int, src: IPAddress, dst: IPAddress) -> DecodedPacket {
        guard b.count >= o + 20 else {
            return .malformed(PacketProblem(layer: "TCP", offset: o, reason: "header needs 20 bytes, \(max(0, b.count - o)) captured"))
        }
        guard declaredEnd >= o + 20 else {
            return .malformed(PacketProblem(layer: "TCP", offset: o, reason: "IP length leaves \(declaredEnd - o) bytes for a 20-byte header"))
        }
        let dataOffset = Int(b[o + 12] >> 4) * 4
        guard dataOffset >= 20 else {
            return .malformed(PacketProblem(layer: "TCP", offset: o + 12, reason: "data offset \(dataOffset) is below 20"))
        }
        guard b.count >= o + dataOffset, declaredEnd >= o + dataOffset else {
            return .malformed(PacketProblem(layer: "TCP", offset: o + 12,
                                            reason: "header length \(dataOffset) exceeds the bytes available (\(min(b.count, declaredEnd) - o))"))
        }
        let payloadStart = o + dataOffset
        let capturedEnd = min(b.count, declaredEnd)  // bytes past declaredEnd are link padding
        return .tcp(TCPSegment(
            source: Endpoint(address: src, port: b.be16(o)),
            destination: Endpoint(address: dst, port: b.be16(o + 2)),
            sequence: b.be32(o + 4), acknowledgment: b.be32(o + 8),
            flags: TCPFlags(rawValue: b[o + 13] & 0x3F),
            payloadOffset: payloadStart, payloadCount: capturedEnd - payloadStart,
            missingPayload: declaredEnd - capturedEnd))
    }
}
