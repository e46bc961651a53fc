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
            return id.withUTF8 { utf8 in with(utf8, body) }
        }

        /// Calls `body` with the key of the id whose UTF-8 bytes are `utf8`, built on the stack.
        static func with<R>(_ utf8: UnsafeBufferPointer<UInt8>, _ body: (UnsafeRawBufferPointer) -> R) -> R {
            withUnsafeTemporaryAllocation(byteCount: maxLength(utf8.count), alignment: 1) { buffer in
                let n = encode(utf8, into: buffer)
                return body(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
            }
        }

        /// Writes the key of the id `utf8` into `out` (at least ``maxLength(_:)`` bytes);
        /// returns its length.
        static func encode(_ utf8: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableRawBufferPointer) -> Int {
            if let n = encodeUUID(utf8, into: out) { return n }
            let n = writeHeader(utf8.count << 2, into: out)
            UnsafeMutableRawBufferPointer(rebasing: out[n...]).copyMemory(from: UnsafeRawBufferPointer(utf8))
            return n + utf8.count
        }

        /// The key of a canonical UUID (form 1 or 2, one header byte and 16 bytes), read
        /// in one pass two digits at a time through ``hexDigits``; nil for any other id.
        static func encodeUUID(_ s: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableRawBufferPointer) -> Int? {
            guard s.count == 36, s[8] == UInt8(ascii: "-"), s[13] == UInt8(ascii: "-"), s[18] == UInt8(ascii: "-"),
                  s[23] == UInt8(ascii: "-") else { return nil }
            return hexDigits.withUnsafeBufferPointer { t -> Int? in
                var classes: UInt8 = 0, i = 0, k = 1
                while i < 36 {
                    if i == 8 || i == 13 || i == 18 || i == 23 { i += 1; continue }
                    let a = t[Int(s[i])], b = t[Int(s[i &+ 1])]
                    guard a != 0, b != 0 else { return nil }
                    classes |= a | b
                    out[k] = (a & 0x0F) << 4 | (b & 0x0F)
                    k &+= 1
                    i &+= 2
                }
                let lower = classes & 0x20 != 0, upper = classes & 0x40 != 0
                if lower && upper { return nil }
                out[0] = UInt8(16 << 2 | (upper ? 2 : 1))  // one byte: below 0x80
                return k
            }
        }

        /// Per byte: its value as a hex digit in the low four bits, and 0x10 for `0-9`,
        /// 0x20 for `a-f`, 0x40 for `A-F`; 0 for any other byte.
        static let hexDigits: [UInt8] = (0..<256).map { c -> UInt8 in
            switch UInt8(c) {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): 0x10 | (UInt8(c) - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): 0x20 | (UInt8(c) - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): 0x40 | (UInt8(c) - UInt8(ascii: "A") + 10)
            default: 0
            }
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
    }
}
