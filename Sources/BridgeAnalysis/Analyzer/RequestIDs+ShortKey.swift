extension RequestIDs {
    /// An id's key (``RecentIDs/Key``) of at most 24 bytes, held inline (a count of 0:
    /// none): what a ``Lookup`` hands on to ``answer(slot:at:id:action:kind:)``, so a
    /// UUID's key (17 bytes) is encoded once per response.
    struct ShortKey {
        /// The most bytes held.
        static let capacity = 24
        private var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
        private var count = 0

        /// None.
        init() {}

        /// `key`'s bytes, or none when it is longer than ``capacity``.
        init(_ key: UnsafeRawBufferPointer) {
            guard key.count <= Self.capacity else { return }
            count = key.count
            if key.count == 17 {
                // A UUID's key, in three loads (a `memmove` call otherwise).
                words = (key.loadUnaligned(fromByteOffset: 0, as: UInt64.self), key.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                         UInt64(key[16]).littleEndian)
            } else {
                withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: key) }
            }
        }

        /// `body` with the key's bytes; nil when there is none.
        func with<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R? {
            guard count > 0 else { return nil }
            return withUnsafeBytes(of: words) { body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
    }
}
