extension ArchiveReader {
    /// The remaining items as an `AsyncSequence` (one pass, shared with the synchronous
    /// iterator). Each step reads at most one compressed chunk (about 128 KiB) from the
    /// source on the calling thread, then yields to other tasks every 256 items.
    public var asyncItems: AsyncItems { AsyncItems(reader: self) }

    /// An `AsyncSequence` over an ``ArchiveReader``'s items. Never throws: damage is
    /// an ``ArchiveItem/finding(_:)``.
    public struct AsyncItems: AsyncSequence {
        /// Items are records, events, the trailer and findings.
        public typealias Element = ArchiveItem
        /// Nothing is thrown.
        public typealias Failure = Never

        let reader: ArchiveReader

        /// The iterator.
        public func makeAsyncIterator() -> Iterator { Iterator(reader: reader) }

        /// Pulls items from the reader.
        public struct Iterator: AsyncIteratorProtocol {
            let reader: ArchiveReader
            var sinceYield = 0

            /// The next item, or nil at the end (or when the task is cancelled).
            public mutating func next() async -> ArchiveItem? {
                if Task.isCancelled { return nil }
                sinceYield += 1
                if sinceYield >= 256 {
                    sinceYield = 0
                    await Task.yield()
                }
                return reader.next()
            }
        }
    }
}
