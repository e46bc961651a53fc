extension UnsafeRawBufferPointer {
    /// The big-endian 16-bit value at `offset` (the caller checked the bounds).
    @inline(__always)
    func be16(_ offset: Int) -> UInt16 {
        UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
    }

    /// The big-endian 32-bit value at `offset` (the caller checked the bounds).
    @inline(__always)
    func be32(_ offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8 | UInt32(self[offset + 3])
    }

    /// The big-endian 64-bit value at `offset` (the caller checked the bounds).
    @inline(__always)
    func be64(_ offset: Int) -> UInt64 {
        UInt64(be32(offset)) << 32 | UInt64(be32(offset + 4))
    }

    /// The little-endian 32-bit value at `offset` (the caller checked the bounds).
    @inline(__always)
    func le32(_ offset: Int) -> UInt32 {
        UInt32(self[offset]) | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2]) << 16 | UInt32(self[offset + 3]) << 24
    }
}
