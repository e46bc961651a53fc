extension RecentIDs {
    /// How ``RecentIDs`` stores an id: a header, the LEB128 varint of
    /// `payload length << 2 | form`, then the payload. Form 1 is a canonical UUID in
    /// lowercase (`8-4-4-4-12` hex digits), form 2 one in uppercase (at least one
    /// letter): their 16 bytes are the payload. Form 0 is any other id, its UTF-8 bytes
    /// as they are. An id has exactly one key, so ids are equal exactly when their keys
    /// are; the header leads, so no key is a prefix of another.
    enum Key {
        /// The most bytes a key of an `n`-byte id takes.
        static func maxLength(_ n: Int) -> Int { n + 10 }

        /// Calls `body` with the key of `id`, built on the stack.
        static func with<R>(_ id: String, _ body: (UnsafeRawBufferPointer) -> R) -> R {
            var id = id
            return id.withUTF8 { utf8 in
                withUnsafeTemporaryAllocation(byteCount: maxLength(utf8.count), alignment: 1) { buffer in
                    let n = encode(utf8, into: buffer)
                    return body(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
                }
            }
        }

        /// Writes the key of the id `utf8` into `out` (at least ``maxLength(_:)`` bytes);
        /// returns its length.
        static func encode(_ utf8: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableRawBufferPointer) -> Int {
            if let form = uuidForm(utf8) {
                var n = writeHeader(16 << 2 | form, into: out)
                var high = true
                for c in utf8 where c != UInt8(ascii: "-") {
                    let v = nibble(c)
                    if high { out[n] = v << 4 } else { out[n] |= v; n += 1 }
                    high.toggle()
                }
                return n
            }
            let n = writeHeader(utf8.count << 2, into: out)
            UnsafeMutableRawBufferPointer(rebasing: out[n...]).copyMemory(from: UnsafeRawBufferPointer(utf8))
            return n + utf8.count
        }

        /// The length of the key that `bytes` starts with.
        static func length(_ bytes: UnsafeRawBufferPointer) -> Int {
            var value = 0, shift = 0, i = 0
            while true {
                let b = bytes[i]
                value |= Int(b & 0x7F) << shift
                i += 1
                if b < 0x80 { break }
                shift += 7
            }
            return i + value >> 2
        }

        private static func writeHeader(_ value: Int, into out: UnsafeMutableRawBufferPointer) -> Int {
            var v = UInt(value), n = 0
            while v >= 0x80 {
                out[n] = UInt8(truncatingIfNeeded: v) | 0x80
                v >>= 7
                n += 1
            }
            out[n] = UInt8(v)
            return n + 1
        }

        /// 1 for a lowercase canonical UUID, 2 for an uppercase one, nil otherwise.
        static func uuidForm(_ s: UnsafeBufferPointer<UInt8>) -> Int? {
            guard s.count == 36 else { return nil }
            var lower = false, upper = false
            for (i, c) in s.enumerated() {
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    guard c == UInt8(ascii: "-") else { return nil }
                } else if c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f") {
                    lower = true
                } else if c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F") {
                    upper = true
                } else if c < UInt8(ascii: "0") || c > UInt8(ascii: "9") {
                    return nil
                }
            }
            if lower && upper { return nil }
            return upper ? 2 : 1
        }

        private static func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            default: c - UInt8(ascii: "A") + 10
            }
        }
    }
}
