/// A decoded RFC 6455 §5.2 frame header: the bits, the payload length it announces, the
/// masking key, and how many bytes the header itself took on the wire.
public struct WebSocketFrameHeader: Sendable, Hashable {
    /// FIN, RSV1–3, opcode and MASK, in the form ``MessageAssembler`` takes.
    public var bits: MessageAssembler.FrameHeader
    /// The payload length the header announces (already checked to fit in an `Int`).
    public var payloadLength: Int
    /// The masking key (meaningful only when `bits.masked`), as the 4 bytes read.
    public var maskKey: UInt32
    /// Bytes of header before the payload: 2, 4 or 10, plus 4 when masked.
    public var headerLength: Int
    /// Whether the length used the shortest encoding (RFC 6455 §5.2 requires it; every
    /// implementation seen writes it, so the resynchronization heuristic relies on it).
    public var minimalLength: Bool

    /// Header plus payload bytes.
    public var frameLength: Int { headerLength + payloadLength }

    /// The outcome of reading a header from the start of some bytes.
    public enum Peek: Sendable, Hashable {
        /// Not enough bytes for the whole header yet.
        case needMore
        /// A header (the payload may not be there yet).
        case header(WebSocketFrameHeader)
        /// The 64-bit length has its most significant bit set (RFC 6455 §5.2 forbids it)
        /// or does not fit in an `Int`.
        case invalidLength
    }

    /// Reads a header from the start of `bytes` without consuming anything.
    public static func peek(_ bytes: UnsafeRawBufferPointer) -> Peek {
        let n = bytes.count
        guard n >= 2 else { return .needMore }
        let b0 = bytes[0], b1 = bytes[1]
        let masked = b1 & 0x80 != 0
        var length = Int(b1 & 0x7F)
        var offset = 2
        var minimal = true
        if length == 126 {
            guard n >= 4 else { return .needMore }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            offset = 4
            minimal = length >= 126
        } else if length == 127 {
            guard n >= 10 else { return .needMore }
            var v: UInt64 = 0
            for i in 2..<10 { v = v << 8 | UInt64(bytes[i]) }
            guard v >> 63 == 0, v <= UInt64(Int.max / 2) else { return .invalidLength }
            length = Int(v)
            offset = 10
            minimal = length > 0xFFFF
        }
        var key: UInt32 = 0
        if masked {
            guard n >= offset + 4 else { return .needMore }
            key = UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16
                | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
            offset += 4
        }
        let bits = MessageAssembler.FrameHeader(
            fin: b0 & 0x80 != 0, rsv1: b0 & 0x40 != 0, rsv2: b0 & 0x20 != 0, rsv3: b0 & 0x10 != 0,
            opcode: MessageAssembler.Opcode(rawValue: b0 & 0x0F), masked: masked)
        return .header(WebSocketFrameHeader(bits: bits, payloadLength: length, maskKey: key,
                                            headerLength: offset, minimalLength: minimal))
    }
}

extension WebSocketFrameHeader {
    /// XORs `payload` in place with a masking key (RFC 6455 §5.3); applying it twice
    /// restores the input. `phase` is the payload offset of the first byte.
    public static func unmask(_ payload: UnsafeMutableRawBufferPointer, key: UInt32, phase: Int = 0) {
        let k: [UInt8] = [UInt8(key >> 24), UInt8(key >> 16 & 0xFF), UInt8(key >> 8 & 0xFF), UInt8(key & 0xFF)]
        var i = 0
        let n = payload.count
        // Word at a time once aligned to the key phase, bytes for the rest.
        while i < n && (i + phase) & 3 != 0 {
            payload[i] ^= k[(i + phase) & 3]
            i += 1
        }
        if n - i >= 8 {
            let word = UInt64(k[0]) | UInt64(k[1]) << 8 | UInt64(k[2]) << 16 | UInt64(k[3]) << 24
            let key64 = word | word << 32
            while n - i >= 8 {
                let v = payload.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                payload.storeBytes(of: v ^ key64.littleEndianFromHostOrder, toByteOffset: i, as: UInt64.self)
                i += 8
            }
        }
        while i < n {
            payload[i] ^= k[(i + phase) & 3]
            i += 1
        }
    }

    /// Builds a frame's bytes (for tests, the pcapng exporter and clients): header,
    /// optional masking key, payload masked when a key is given. Lengths use the
    /// shortest encoding.
    public static func encode(fin: Bool = true, rsv1: Bool = false, opcode: MessageAssembler.Opcode,
                              maskKey: UInt32? = nil, payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + 14)
        out.append((fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode.rawValue & 0x0F)
        let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
        if payload.count < 126 {
            out.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(payload.count >> 8))
            out.append(UInt8(payload.count & 0xFF))
        } else {
            out.append(maskBit | 127)
            for s in stride(from: 56, through: 0, by: -8) { out.append(UInt8(UInt64(payload.count) >> UInt64(s) & 0xFF)) }
        }
        var body = payload
        if let key = maskKey {
            out.append(contentsOf: [UInt8(key >> 24), UInt8(key >> 16 & 0xFF), UInt8(key >> 8 & 0xFF), UInt8(key & 0xFF)])
            body.withUnsafeMutableBytes { unmask($0, key: key) }
        }
        out.append(contentsOf: body)
        return out
    }
}

extension UInt64 {
    /// The key word laid out so that a little-endian load XORs byte-wise correctly.
    fileprivate var littleEndianFromHostOrder: UInt64 { UInt64(littleEndian: self) }
}
