import CZstd

/// Test hooks: building damaged or foreign archives byte by byte needs raw zstd, which
/// only this module may touch.
@_spi(Testing)
public enum ArchiveTesting {
    /// `bytes` as one complete zstd frame (level 1, with a content checksum).
    public static func compressFrame(_ bytes: [UInt8], checksum: Bool = true) -> [UInt8] {
        guard let c = try? ZstdCompressor(level: 1, checksum: checksum) else { return [] }
        var out: [UInt8] = []
        bytes.withUnsafeBytes { buf in
            try? c.compress(buf, ZSTD_e_end) { (chunk) throws(ArchiveError) in out.append(contentsOf: chunk) }
        }
        return out
    }

    /// Lines joined with newlines (each line ends with one), as one zstd frame.
    public static func compressLines(_ lines: [String], checksum: Bool = true) -> [UInt8] {
        compressFrame(Array(lines.map { $0 + "\n" }.joined().utf8), checksum: checksum)
    }
}
