/// Encodes pcapng blocks (draft-ietf-opsawg-pcapng), little-endian: a section header,
/// one interface description (nanosecond time stamps), enhanced packet blocks. Pure: it
/// appends bytes to a buffer.
struct PcapngBlockWriter {
    /// Bytes kept per packet, as announced in the interface block: 262,144.
    static let snapshotLength: UInt32 = 262_144

    /// Section header block (with `shb_userappl`) and the interface description block
    /// for `linkType` (`if_tsresol` 9: time stamps in nanoseconds).
    func header(application: String, linkType: UInt16, into out: inout [UInt8]) {
        var options: [UInt8] = []
        option(4, Array(application.utf8), into: &options)
        endOfOptions(into: &options)
        var body: [UInt8] = []
        le32(0x1A2B_3C4D, into: &body)
        le16(1, into: &body)
        le16(0, into: &body)
        body.append(contentsOf: [UInt8](repeating: 0xFF, count: 8)) // section length unknown
        body.append(contentsOf: options)
        block(0x0A0D_0D0A, body, into: &out)

        var idb: [UInt8] = []
        le16(linkType, into: &idb)
        le16(0, into: &idb)
        le32(Self.snapshotLength, into: &idb)
        option(9, [9], into: &idb)
        endOfOptions(into: &idb)
        block(1, idb, into: &out)
    }

    /// An enhanced packet block on interface 0 at `time` (epoch ns).
    func packet(_ data: [UInt8], time: Int64, into out: inout [UInt8]) {
        let ts = UInt64(bitPattern: time)
        let length = 28 + (data.count + 3) & ~3 + 4
        le32(6, into: &out)
        le32(UInt32(length), into: &out)
        le32(0, into: &out)
        le32(UInt32(ts >> 32), into: &out)
        le32(UInt32(ts & 0xFFFF_FFFF), into: &out)
        le32(UInt32(data.count), into: &out)
        le32(UInt32(data.count), into: &out)
        out.append(contentsOf: data)
        out.append(contentsOf: [UInt8](repeating: 0, count: (4 - data.count % 4) % 4))
        le32(UInt32(length), into: &out)
    }

    private func block(_ type: UInt32, _ body: [UInt8], into out: inout [UInt8]) {
        let length = UInt32(12 + body.count)
        le32(type, into: &out)
        le32(length, into: &out)
        out.append(contentsOf: body)
        le32(length, into: &out)
    }

    private func option(_ code: UInt16, _ value: [UInt8], into out: inout [UInt8]) {
        le16(code, into: &out)
        le16(UInt16(value.count), into: &out)
        out.append(contentsOf: value)
        out.append(contentsOf: [UInt8](repeating: 0, count: (4 - value.count % 4) % 4))
    }

    private func endOfOptions(into out: inout [UInt8]) {
        le32(0, into: &out)
    }

    private func le16(_ v: UInt16, into out: inout [UInt8]) {
        out.append(UInt8(v & 0xFF))
        out.append(UInt8(v >> 8))
    }

    private func le32(_ v: UInt32, into out: inout [UInt8]) {
        for s in stride(from: 0, to: 32, by: 8) { out.append(UInt8(v >> UInt32(s) & 0xFF)) }
    }
}
