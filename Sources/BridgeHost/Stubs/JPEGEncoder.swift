import CTurboJPEG

/// Writes baseline JPEG files with libjpeg-turbo's TurboJPEG API (`tjCompress2`,
/// 4:2:0 chroma subsampling).
public enum JPEGEncoder {
    /// Largest accepted width or height, in pixels.
    static let maxDimension = 8192

    /// Encodes packed RGB pixels (`width * height * 3` bytes, top row first) at `quality`
    /// (1–100).
    public static func encode(rgb: [UInt8], width: Int, height: Int, quality: Int32 = 85) throws(HostError) -> [UInt8] {
        guard width > 0, height > 0, width <= maxDimension, height <= maxDimension else {
            throw HostError(.imageEncoding, "JPEG size \(width)×\(height) is outside 1…\(maxDimension)")
        }
        guard rgb.count == width * height * 3 else {
            throw HostError(.imageEncoding, "JPEG pixel buffer holds \(rgb.count) bytes, expected \(width * height * 3)")
        }
        guard (1...100).contains(quality) else { throw HostError(.imageEncoding, "JPEG quality \(quality) is outside 1…100") }
        guard let handle = tjInitCompress() else {
            throw HostError(.imageEncoding, "tjInitCompress failed: \(String(cString: tjGetErrorStr()))")
        }
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = rgb.withUnsafeBufferPointer { src in
            tjCompress2(handle, src.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue),
                        &buffer, &size, Int32(TJSAMP_420.rawValue), quality, 0)
        }
        defer { if let buffer { tjFree(buffer) } }
        guard status == 0, let buffer else {
            throw HostError(.imageEncoding, "tjCompress2 failed: \(String(cString: tjGetErrorStr2(handle)))")
        }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }
}
