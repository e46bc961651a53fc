import CZlib

/// Writes PNG files (RGB, 8 bits per channel, no interlace): the chunks are assembled
/// here; the image data is compressed with zlib's `compress2` and every chunk's CRC is
/// zlib's `crc32` (PNG specification, ISO/IEC 15948).
public enum PNGEncoder {
    /// Largest accepted width or height, in pixels.
    static let maxDimension = 8192
    /// The 8-byte PNG signature.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Encodes packed RGB pixels (`width * height * 3` bytes, top row first).
    /// `level` is zlib's compression level, 0–9.
    public static func encode(rgb: [UInt8], width: Int, height: Int, level: Int32 = 6) throws(HostError) -> [UInt8] {
        guard width > 0, height > 0, width <= maxDimension, height <= maxDimension else {
            throw HostError(.imageEncoding, "PNG size \(width)×\(height) is outside 1…\(maxDimension)")
        }
        guard rgb.count == width * height * 3 else {
            throw HostError(.imageEncoding, "PNG pixel buffer holds \(rgb.count) bytes, expected \(width * height * 3)")
        }
        // Scanlines, each led by its filter type byte (0: None).
        let stride = width * 3
        var raw = [UInt8](repeating: 0, count: (stride + 1) * height)
        raw.withUnsafeMutableBufferPointer { dst in
            rgb.withUnsafeBufferPointer { src in
                for y in 0..<height {
                    let d = y * (stride + 1) + 1
                    for i in 0..<stride { dst[d + i] = src[y * stride + i] }
                }
            }
        }
        var compressed = [UInt8](repeating: 0, count: Int(compressBound(uLong(raw.count))))
        var compressedLength = uLongf(compressed.count)
        let status = compressed.withUnsafeMutableBufferPointer { out in
            raw.withUnsafeBufferPointer { src in
                compress2(out.baseAddress, &compressedLength, src.baseAddress, uLong(src.count), level)
            }
        }
        guard status == Z_OK else { throw HostError(.imageEncoding, "zlib compress2 failed with status \(status)") }
        compressed.removeSubrange(Int(compressedLength)...)

        var png = signature
        var ihdr: [UInt8] = []
        appendUInt32(UInt32(width), to: &ihdr)
        appendUInt32(UInt32(height), to: &ihdr)
        ihdr += [8, 2, 0, 0, 0]  // bit depth 8, colour type 2 (RGB), deflate, filter method 0, no interlace
        appendChunk("IHDR", ihdr, to: &png)
        appendChunk("IDAT", compressed, to: &png)
        appendChunk("IEND", [], to: &png)
        return png
    }

    static func appendChunk(_ type: String, _ data: [UInt8], to png: inout [UInt8]) {
        appendUInt32(UInt32(data.count), to: &png)
        let typeAndData = Array(type.utf8) + data
        png += typeAndData
        let crc = typeAndData.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
        appendUInt32(UInt32(truncatingIfNeeded: crc), to: &png)
    }

    static func appendUInt32(_ v: UInt32, to out: inout [UInt8]) {
        out += [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }
}
