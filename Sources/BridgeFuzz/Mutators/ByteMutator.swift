/// Byte-level mutations on a serialized message (issue 8): bit flips, byte changes,
/// insertions and erasures, truncation, copying and splicing, invalid UTF-8, ASCII
/// integer changes. With `useDictionary` false it is a plain libFuzzer-style byte mutator
/// (the bug-finding benchmark's baseline); with it true it also splices protocol tokens
/// and hostile fragments.
struct ByteMutator: Sendable {
    /// Splice dictionary tokens and hostile fragments too.
    var useDictionary: Bool
    /// Largest result, in bytes.
    public var maxSize: Int

    /// Creates a mutator.
    public init(useDictionary: Bool = true, maxSize: Int = 1 << 20) {
        self.useDictionary = useDictionary
        self.maxSize = maxSize
    }

    static let interesting: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xFF, 0x20, 0x0A, 0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D,
                                       0x2C, 0x3A, 0x30, 0x31, 0x39, 0x2D, 0x2E, 0x65, 0x75, 0xC0, 0xED, 0xF4]

    /// Mutates `bytes` once; `other` is another message to splice from.
    public func mutate(_ bytes: inout [UInt8], other: [UInt8]?, _ rng: inout FuzzRandom) {
        let ops = useDictionary ? 12 : 10
        switch rng.below(ops) {
        case 0:  // flip a bit
            guard !bytes.isEmpty else { bytes.append(UInt8(truncatingIfNeeded: rng.next())); return }
            bytes[rng.below(bytes.count)] ^= 1 << UInt8(rng.below(8))
        case 1:  // change a byte
            guard !bytes.isEmpty else { return }
            bytes[rng.below(bytes.count)] = rng.oneIn(2) ? rng.pick(Self.interesting)! : UInt8(truncatingIfNeeded: rng.next())
        case 2:  // insert a byte
            guard bytes.count < maxSize else { return }
            bytes.insert(rng.oneIn(2) ? rng.pick(Self.interesting)! : UInt8(truncatingIfNeeded: rng.next()), at: rng.below(bytes.count + 1))
        case 3:  // insert repeated bytes
            let n = min(rng.within(1...128), maxSize - bytes.count)
            guard n > 0 else { return }
            bytes.insert(contentsOf: repeatElement(rng.pick(Self.interesting)!, count: n), at: rng.below(bytes.count + 1))
        case 4:  // erase bytes
            guard !bytes.isEmpty else { return }
            let start = rng.below(bytes.count)
            let n = min(rng.smallCount(max: 16) * (rng.oneIn(4) ? 8 : 1), bytes.count - start)
            bytes.removeSubrange(start..<(start + n))
        case 5:  // truncate
            guard !bytes.isEmpty else { return }
            bytes.removeSubrange(rng.below(bytes.count)...)
        case 6:  // copy a part of itself elsewhere (insert or overwrite)
            guard bytes.count > 1 else { return }
            let from = rng.below(bytes.count)
            let n = min(rng.within(1...max(1, min(256, bytes.count - from))), maxSize - bytes.count)
            guard n > 0 else { return }
            let chunk = Array(bytes[from..<(from + n)])
            if rng.oneIn(2) {
                bytes.insert(contentsOf: chunk, at: rng.below(bytes.count + 1))
            } else {
                let to = rng.below(bytes.count)
                for (k, b) in chunk.enumerated() where to + k < bytes.count { bytes[to + k] = b }
            }
        case 7:  // splice from another message
            guard let other, !other.isEmpty else { return }
            let from = rng.below(other.count)
            let n = min(rng.within(1...max(1, other.count - from)), maxSize - bytes.count)
            guard n > 0 else { return }
            bytes.insert(contentsOf: other[from..<(from + n)], at: rng.below(bytes.count + 1))
        case 8:  // change an ASCII integer
            changeASCIIInteger(&bytes, &rng)
        case 9:  // shuffle a few bytes
            guard bytes.count > 1 else { return }
            let start = rng.below(bytes.count - 1)
            let end = min(bytes.count, start + rng.within(2...8))
            bytes[start..<end].shuffle(using: &rng)
        case 10:  // invalid UTF-8 and hostile fragments
            guard bytes.count < maxSize else { return }
            bytes.insert(contentsOf: rng.pick(FuzzDictionary.rawFragments)!, at: rng.below(bytes.count + 1))
        default:  // a protocol token, quoted
            guard bytes.count < maxSize else { return }
            let token = rng.pick(FuzzDictionary.actions + FuzzDictionary.types + FuzzDictionary.statuses + FuzzDictionary.errorCodes)!
            bytes.insert(contentsOf: Array("\"\(token)\"".utf8), at: rng.below(bytes.count + 1))
        }
    }

    func changeASCIIInteger(_ bytes: inout [UInt8], _ rng: inout FuzzRandom) {
        guard !bytes.isEmpty else { return }
        var i = rng.below(bytes.count)
        while i < bytes.count && !(bytes[i] >= 0x30 && bytes[i] <= 0x39) { i += 1 }
        guard i < bytes.count else { return }
        var j = i
        while j < bytes.count && bytes[j] >= 0x30 && bytes[j] <= 0x39 { j += 1 }
        let replacement: String
        switch rng.below(4) {
        case 0: replacement = "0"
        case 1: replacement = String(UInt64.max)
        case 2: replacement = String(rng.below(1000))
        default:
            let digits = String(decoding: bytes[i..<min(j, i + 18)], as: UTF8.self)
            replacement = String((Int64(digits) ?? 0) &+ Int64(rng.within(-2...2)))
        }
        bytes.replaceSubrange(i..<j, with: Array(replacement.utf8))
    }
}
