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

        /// Calls `body` with the key of the id whose UTF-8 bytes are `utf8`, built on the stack
        /// (``StackBytes``: in its fixed buffer for an id of up to 54 bytes; a UUID's is 36).
        static func with<R>(_ utf8: UnsafeBufferPointer<UInt8>, _ body: (UnsafeRawBufferPointer) -> R) -> R {
            StackBytes.with(count: maxLength(utf8.count)) { buffer in
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
        /// eight hex digits at a time in a word (``hexWord(_:)``); nil for any other id.
        /// (A table lookup per digit, two digits a step, was 1.5% of `analyze` on a session
        /// of small messages.)
        static func encodeUUID(_ s: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableRawBufferPointer) -> Int? {
            guard s.count == 36, out.count >= 17, s[8] == UInt8(ascii: "-"), s[13] == UInt8(ascii: "-"),
                  s[18] == UInt8(ascii: "-"), s[23] == UInt8(ascii: "-") else { return nil }
            let raw = UnsafeRawBufferPointer(s)
            func load(_ at: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
            func load4(_ at: Int) -> UInt64 { UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self))) }
            // The 32 digits in four words: 8, 4 + 4, 4 + 4 and 8 of them, in order.
            let words = (load(0), load4(9) | load4(14) << 32, load4(19) | load4(24) << 32, load(28))
            guard let a = hexWord(words.0), let b = hexWord(words.1), let c = hexWord(words.2), let d = hexWord(words.3) else { return nil }
            let letters = a.letters | b.letters | c.letters | d.letters
            let lower = letters & 1 != 0, upper = letters & 2 != 0
            if lower && upper { return nil }
            out[0] = UInt8(16 << 2 | (upper ? 2 : 1))  // one byte: below 0x80
            out.storeBytes(of: a.value.littleEndian, toByteOffset: 1, as: UInt32.self)
            out.storeBytes(of: b.value.littleEndian, toByteOffset: 5, as: UInt32.self)
            out.storeBytes(of: c.value.littleEndian, toByteOffset: 9, as: UInt32.self)
            out.storeBytes(of: d.value.littleEndian, toByteOffset: 13, as: UInt32.self)
            return 17
        }

        /// The four bytes spelled by the eight hex digits of `w` (the first digit in its
        /// low byte), first byte lowest; `letters` has bit 0 when a digit is `a-f` and
        /// bit 1 when one is `A-F`. Nil when a byte is not a hex digit.
        @inline(__always)
        static func hexWord(_ w: UInt64) -> (value: UInt32, letters: UInt8)? {
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            guard w & highs == 0 else { return nil }  // ASCII only: no lane carries below
            // Per byte, 0x80 when it is in lo...hi (each byte below 0x80).
            func within(_ lo: UInt64, _ hi: UInt64) -> UInt64 {
                (w &+ (0x80 - lo) &* ones) & ~(w &+ (0x7F - hi) &* ones) & highs
            }
            let digits = within(0x30, 0x39), lower = within(0x61, 0x66), upper = within(0x41, 0x46)
            guard digits | lower | upper == highs else { return nil }
            // Each nibble: the low four bits, plus 9 for a letter (bit 6 set).
            let v = (w & 0x0F0F_0F0F_0F0F_0F0F) &+ ((w >> 6) & ones) &* 9
            // Two digits a byte (the first one high), then the four bytes together.
            var t = ((v & 0x00FF_00FF_00FF_00FF) << 4) | ((v >> 8) & 0x00FF_00FF_00FF_00FF)
            t = (t | t >> 8) & 0x0000_FFFF_0000_FFFF
            t = (t | t >> 16) & 0xFFFF_FFFF
            return (UInt32(truncatingIfNeeded: t), (lower != 0 ? 1 : 0) | (upper != 0 ? 2 : 0))
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
