import CZstd

/// A zstd streaming compression context (`ZSTD_compressStream2`) that hands every
/// compressed byte to a sink as soon as libzstd produces it.
final class ZstdCompressor {
    private let cctx: OpaquePointer
    private var out: [UInt8]

    /// Creates a context at `level` (1 = fastest), with a content checksum per frame
    /// when `checksum` is set.
    init(level: Int32, checksum: Bool) throws(ArchiveError) {
        guard let c = ZSTD_createCCtx() else {
            throw ArchiveError(.compression, "ZSTD_createCCtx failed (out of memory)")
        }
        cctx = c
        out = [UInt8](repeating: 0, count: ZSTD_CStreamOutSize())
        try check(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level), "set compression level \(level)")
        try check(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum ? 1 : 0), "enable checksums")
    }

    deinit {
        ZSTD_freeCCtx(cctx)
    }

    /// Compresses `input` with `directive`; every output byte goes to `sink`. For
    /// `ZSTD_e_flush` and `ZSTD_e_end` it loops until libzstd reports nothing left.
    func compress(_ input: UnsafeRawBufferPointer, _ directive: ZSTD_EndDirective,
                  sink: (UnsafeRawBufferPointer) throws(ArchiveError) -> Void) throws(ArchiveError) {
        var inBuf = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        let capacity = out.count
        while true {
            let (remaining, produced): (Int, Int) = out.withUnsafeMutableBytes { o in
                var outBuf = ZSTD_outBuffer(dst: o.baseAddress, size: capacity, pos: 0)
                let r = ZSTD_compressStream2(cctx, &outBuf, &inBuf, directive)
                return (r, outBuf.pos)
            }
            if ZSTD_isError(remaining) != 0 {
                throw ArchiveError(.compression, "ZSTD_compressStream2 failed: \(String(cString: ZSTD_getErrorName(remaining)))")
            }
            if produced > 0 {
                let result: Result<Void, ArchiveError> = out.withUnsafeBytes { o in
                    do throws(ArchiveError) {
                        try sink(UnsafeRawBufferPointer(rebasing: o[0..<produced]))
                        return .success(())
                    } catch { return .failure(error) }
                }
                try result.get()
            }
            let inputDone = inBuf.pos == inBuf.size
            if directive == ZSTD_e_continue {
                if inputDone { return }
            } else if inputDone && remaining == 0 {
                return
            }
        }
    }

    private func check(_ code: Int, _ what: String) throws(ArchiveError) {
        if ZSTD_isError(code) != 0 {
            throw ArchiveError(.compression, "zstd: cannot \(what): \(String(cString: ZSTD_getErrorName(code)))")
        }
    }
}
