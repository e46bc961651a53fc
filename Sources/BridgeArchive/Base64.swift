/// RFC 4648 §4 base64 with padding, strict on decode (no whitespace, no missing or
/// extra padding, zero unused bits), so a `b64` payload has exactly one spelling.
enum Base64 {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    /// Encoded length of `count` bytes.
    static func encodedLength(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Appends the base64 of `bytes` to `out`.
    static func encode(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        out.reserveCapacity(out.count + encodedLength(bytes.count))
        var i = 0
        let n = bytes.count
        while i + 3 <= n {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out.append(alphabet[Int(v >> 18 & 63)])
            out.append(alphabet[Int(v >> 12 & 63)])
            out.append(alphabet[Int(v >> 6 & 63)])
            out.append(alphabet[Int(v & 63)])
            i += 3
        }
        let rest = n - i
        if rest == 1 {
            let v = UInt32(bytes[i]) << 16
            out.append(alphabet[Int(v >> 18 & 63)])
            out.append(alphabet[Int(v >> 12 & 63)])
            out.append(UInt8(ascii: "="))
            out.append(UInt8(ascii: "="))
        } else if rest == 2 {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out.append(alphabet[Int(v >> 18 & 63)])
            out.append(alphabet[Int(v >> 12 & 63)])
            out.append(alphabet[Int(v >> 6 & 63)])
            out.append(UInt8(ascii: "="))
        }
    }

    /// Decodes strict base64, or `nil` when `text` is not canonical base64.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        let s = Array(text)
        guard s.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(s.count / 4 * 3)
        var i = 0
        while i < s.count {
            let last = i + 4 == s.count
            let a = reverse[Int(s[i])], b = reverse[Int(s[i + 1])]
            guard a != 0xFF, b != 0xFF else { return nil }
            let c3 = s[i + 2], c4 = s[i + 3]
            if last && c3 == UInt8(ascii: "=") {
                guard c4 == UInt8(ascii: "="), b & 0x0F == 0 else { return nil }
                out.append(a << 2 | b >> 4)
                return out
            }
            let c = reverse[Int(c3)]
            guard c != 0xFF else { return nil }
            if last && c4 == UInt8(ascii: "=") {
                guard c & 0x03 == 0 else { return nil }
                out.append(a << 2 | b >> 4)
                out.append((b & 0x0F) << 4 | c >> 2)
                return out
            }
            let d = reverse[Int(c4)]
            guard d != 0xFF else { return nil }
            out.append(a << 2 | b >> 4)
            out.append((b & 0x0F) << 4 | c >> 2)
            out.append((c & 0x03) << 6 | d)
            i += 4
        }
        return out
    }
}
