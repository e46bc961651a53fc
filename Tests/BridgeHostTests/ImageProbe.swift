import Foundation

/// Reads image headers independently of the encoders under test: PNG chunks with their
/// CRCs (own CRC-32 table), JPEG markers up to the first SOF.
enum ImageProbe {
    struct PNGInfo {
        var width: Int, height: Int, bitDepth: UInt8, colourType: UInt8
        var chunks: [String]
        var crcsValid: Bool
    }

    struct JPEGInfo: Equatable {
        var width: Int, height: Int, components: Int
    }

    static func png(_ b: [UInt8]) -> PNGInfo? {
        guard b.count >= 33, Array(b[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else { return nil }
        var chunks: [String] = []
        var crcsValid = true
        var i = 8
        var info: PNGInfo?
        while i + 12 <= b.count {
            let len = Int(be32(b, i))
            guard i + 12 + len <= b.count else { return nil }
            let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
            chunks.append(type)
            if crc32(Array(b[(i + 4)..<(i + 8 + len)])) != be32(b, i + 8 + len) { crcsValid = false }
            if type == "IHDR", len == 13 {
                info = PNGInfo(width: Int(be32(b, i + 8)), height: Int(be32(b, i + 12)), bitDepth: b[i + 16],
                               colourType: b[i + 17], chunks: [], crcsValid: true)
            }
            i += 12 + len
            if type == "IEND" { break }
        }
        guard var result = info, i == b.count else { return nil }
        result.chunks = chunks
        result.crcsValid = crcsValid
        return result
    }

    static func jpeg(_ b: [UInt8]) -> JPEGInfo? {
        guard b.count > 4, b[0] == 0xFF, b[1] == 0xD8, b[b.count - 2] == 0xFF, b[b.count - 1] == 0xD9 else { return nil }
        var i = 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            let len = Int(b[i + 2]) << 8 | Int(b[i + 3])
            if (0xC0...0xC3).contains(marker), i + 9 < b.count {
                return JPEGInfo(width: Int(b[i + 7]) << 8 | Int(b[i + 8]), height: Int(b[i + 5]) << 8 | Int(b[i + 6]),
                                components: Int(b[i + 9]))
            }
            i += 2 + len
        }
        return nil
    }

    /// Writes the image to $BRIDGESCOPE_DUMP_IMAGES/name when that variable is set.
    static func dump(_ bytes: [UInt8], name: String) {
        guard let dir = ProcessInfo.processInfo.environment["BRIDGESCOPE_DUMP_IMAGES"] else { return }
        try? Data(bytes).write(to: URL(fileURLWithPath: dir).appendingPathComponent(name))
    }

    static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
