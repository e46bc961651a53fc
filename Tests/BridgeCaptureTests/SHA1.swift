/// SHA-1 (FIPS 180-4), only to compute `Sec-WebSocket-Accept` in raw test servers
/// (NIO's client checks it). Not for anything else.
enum SHA1 {
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var m = message
        let bitLength = UInt64(message.count) * 8
        m.append(0x80)
        while m.count % 64 != 56 { m.append(0) }
        for s in stride(from: 56, through: 0, by: -8) { m.append(UInt8(bitLength >> UInt64(s) & 0xFF)) }
        func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { x << n | x >> (32 - n) }
        for chunk in stride(from: 0, to: m.count, by: 64) {
            var w = [UInt32](repeating: 0, count: 80)
            for i in 0..<16 {
                w[i] = UInt32(m[chunk + 4 * i]) << 24 | UInt32(m[chunk + 4 * i + 1]) << 16 | UInt32(m[chunk + 4 * i + 2]) << 8 | UInt32(m[chunk + 4 * i + 3])
            }
            for i in 16..<80 { w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1) }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for i in 0..<80 {
                let (f, k): (UInt32, UInt32)
                switch i {
                case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let t = rotl(a, 5) &+ f &+ e &+ k &+ w[i]
                (e, d, c, b, a) = (d, c, rotl(b, 30), a, t)
            }
            h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d; h[4] &+= e
        }
        return h.flatMap { v in [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    }

    /// `Sec-WebSocket-Accept` for a `Sec-WebSocket-Key`.
    static func webSocketAccept(key: String) -> String {
        let d = digest(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var out = ""
        for i in stride(from: 0, to: d.count, by: 3) {
            let n = (UInt32(d[i]) << 16) | (i + 1 < d.count ? UInt32(d[i + 1]) << 8 : 0) | (i + 2 < d.count ? UInt32(d[i + 2]) : 0)
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(i + 1 < d.count ? alphabet[Int(n >> 6 & 63)] : "=")
            out.append(i + 2 < d.count ? alphabet[Int(n & 63)] : "=")
        }
        return out
    }
}
