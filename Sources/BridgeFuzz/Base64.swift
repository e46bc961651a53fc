/// Standard base64 (RFC 4648 §4, with padding) for `b64` steps in case files.
enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = bytes[i], b1 = i + 1 < bytes.count ? bytes[i + 1] : 0, b2 = i + 2 < bytes.count ? bytes[i + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 3) << 4 | b1 >> 4)])
            out.append(i + 1 < bytes.count ? alphabet[Int((b1 & 15) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(b2 & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        var padding = 0
        for c in text.utf8 {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): values.append(c - 65)
            case UInt8(ascii: "a")...UInt8(ascii: "z"): values.append(c - 97 + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): values.append(c - 48 + 52)
            case UInt8(ascii: "+"): values.append(62)
            case UInt8(ascii: "/"): values.append(63)
            case UInt8(ascii: "="): padding += 1
            default: return nil
            }
            if padding > 0 && c != UInt8(ascii: "=") { return nil }
        }
        guard (values.count + padding) % 4 == 0, padding <= 2 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < values.count {
            let v = values[i..<min(i + 4, values.count)]
            let a = v[v.startIndex], b = v.count > 1 ? v[v.startIndex + 1] : 0
            out.append(a << 2 | b >> 4)
            if v.count > 2 { out.append((b & 15) << 4 | v[v.startIndex + 2] >> 2) }
            if v.count > 3 { out.append((v[v.startIndex + 2] & 3) << 6 | v[v.startIndex + 3]) }
            i += 4
        }
        return out
    }
}
