import BridgeProtocol

/// Remembers decode results by message content for one engine: children share most of
/// their messages with their parents, and the virtual clock makes the host's answers to
/// the same prefix byte-identical, so most messages a trace holds were decoded before.
/// Keys are a SipHash of the bytes plus the length and direction; the cache is emptied
/// when it holds ``capacity`` entries. Not thread-safe: one engine, one thread.
final class DecodeCache: @unchecked Sendable {
    struct Key: Hashable {
        var hash: Int
        var count: Int
        var toHost: Bool
    }
    let capacity = 100_000
    private var entries: [Key: DecodeResult] = [:]
    private let decoder = EnvelopeDecoder()

    func decode(_ bytes: [UInt8], direction: Direction) -> DecodeResult {
        var h = Hasher()
        bytes.withUnsafeBytes { h.combine(bytes: $0) }
        let key = Key(hash: h.finalize(), count: bytes.count, toHost: direction == .webToHost)
        if let hit = entries[key] { return hit }
        let r = decoder.decode(bytes, direction: direction)
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[key] = r
        return r
    }
}
