/// RFC 4648 §4 base64 with padding, strict on decode (no whitespace, no missing or
/// extra padding, zero unused bits), so a `b64` payload has exactly one spelling.
/// The package's one Base64: the archive, the fuzzer's case files and replay's image
/// summaries use it (`package` access: not part of any module's public API).
package enum Base64 {
    package static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    package static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    /// Encoded length of `count` bytes.
    package static func encodedLength(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Appends the base64 of `bytes` to `out`.
    package static func encode(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
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
    package static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
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

    /// The base64 of `bytes` as a string.
    package static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        bytes.withUnsafeBytes { encode($0, into: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes strict base64 given as a string, or `nil`.
    package static func decode(_ text: String) -> [UInt8]? {
        decode(text.utf8)
    }

    /// Whether every byte is in the alphabet, with at most two `=` at the end (the shape
    /// of base64, without decoding it).
    package static func isAlphabet(_ chars: [UInt8]) -> Bool {
        var end = chars.count
        var pad = 0
        while end > 0 && chars[end - 1] == UInt8(ascii: "=") && pad < 2 { end -= 1; pad += 1 }
        for i in 0..<end where reverse[Int(chars[i])] == 0xFF { return false }
        return true
    }
}
