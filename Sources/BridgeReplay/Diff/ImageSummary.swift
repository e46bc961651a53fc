import BridgeArchive

/// What replay compares of a base64 image instead of its bytes: the format found in its
/// header, its dimensions, and whether it decodes (valid base64, a PNG IHDR with a good
/// CRC and an IEND at the end, or a JPEG SOI, a frame header (SOF) and an EOI at the end).
/// Two stub cameras drawing the same card give different bytes but equal summaries.
public struct ImageSummary: Sendable, Hashable, CustomStringConvertible {
    /// `image/png`, `image/jpeg`, or nil when neither signature is there.
    public var mimeType: String?
    /// Width from the header (0 when unknown).
    public var width: Int
    /// Height from the header (0 when unknown).
    public var height: Int
    /// Whether the base64 and the header and trailer markers are valid.
    public var decodable: Bool

    /// Reads the summary of base64 `text`. Decodes only the first
    /// ``ReplayLimits/imageProbeBytes`` and the last few bytes.
    public init(base64 text: String) {
        mimeType = nil
        width = 0
        height = 0
        decodable = false
        let chars = Array(text.utf8)
        guard chars.count % 4 == 0, Base64.isAlphabet(chars) else { return }
        let headChars = min(chars.count, (ReplayLimits.imageProbeBytes / 3) * 4)
        guard let head = Base64.decode(chars[0..<headChars]) else { return }
        let tail = Base64.decode(chars[max(0, chars.count - 16)...]) ?? []
        if let png = Self.png(head) {
            mimeType = "image/png"
            (width, height) = (png.width, png.height)
            let iend: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
            decodable = png.crcOK && tail.count >= 12 && Array(tail.suffix(12)) == iend
        } else if head.count >= 2, head[0] == 0xFF, head[1] == 0xD8 {
            mimeType = "image/jpeg"
            if let (w, h) = Self.jpegFrame(head) {
                (width, height) = (w, h)
                decodable = tail.count >= 2 && tail[tail.count - 2] == 0xFF && tail[tail.count - 1] == 0xD9
            }
        }
    }

    /// `image/png 640x400` (or `undecodable`).
    public var description: String {
        guard let mimeType else { return "not an image" }
        return "\(mimeType) \(width)x\(height)\(decodable ? "" : " undecodable")"
    }

    static func png(_ b: [UInt8]) -> (width: Int, height: Int, crcOK: Bool)? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard b.count >= 33, Array(b[0..<8]) == signature, be32(b, 8) == 13,
              Array(b[12..<16]) == Array("IHDR".utf8) else { return nil }
        let crcOK = CRC32.checksum(b[12..<29]) == be32(b, 29)
        return (Int(be32(b, 16)), Int(be32(b, 20)), crcOK)
    }

    /// The dimensions in the first SOF segment, walking segments from SOI.
    static func jpegFrame(_ b: [UInt8]) -> (Int, Int)? {
        var i = 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { i += 2; continue }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2 else { return nil }
            let isSOF = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
            if isSOF {
                guard i + 9 <= b.count, length >= 8 else { return nil }
                let h = Int(b[i + 5]) << 8 | Int(b[i + 6])
                let w = Int(b[i + 7]) << 8 | Int(b[i + 8])
                return w > 0 && h > 0 ? (w, h) : nil
            }
            if marker == 0xDA || marker == 0xD9 { return nil }
            i += 2 + length
        }
        return nil
    }

    static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
}

/// CRC-32 (ISO-HDLC, as PNG uses).
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
