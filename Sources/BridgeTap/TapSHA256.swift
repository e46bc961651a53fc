/// SHA-256 (FIPS 180-4) for the shipped tap, which may not depend on swift-crypto or
/// CryptoKit (docs/TAP.md). The recorder's `Redactor` passes swift-crypto's digest
/// instead; tests check this one against it and against the NIST vectors.
enum TapSHA256 {
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    /// The 32-byte digest of `message`.
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var state = State()
        let full = message.count - message.count % 64
        message.withUnsafeBufferPointer { p in
            var off = 0
            while off < full { state.block(p.baseAddress! + off); off += 64 }
        }
        var tail = Array(message[full...])
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        let bits = UInt64(message.count) &* 8
        for s in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(s))) }
        tail.withUnsafeBufferPointer { p in
            var off = 0
            while off < p.count { state.block(p.baseAddress! + off); off += 64 }
        }
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for v in [state.h0, state.h1, state.h2, state.h3, state.h4, state.h5, state.h6, state.h7] {
            out.append(UInt8(truncatingIfNeeded: v >> 24)); out.append(UInt8(truncatingIfNeeded: v >> 16))
            out.append(UInt8(truncatingIfNeeded: v >> 8)); out.append(UInt8(truncatingIfNeeded: v))
        }
        return out
    }

    /// The eight working words, kept in registers rather than an array.
    private struct State {
        var h0: UInt32 = 0x6a09e667, h1: UInt32 = 0xbb67ae85, h2: UInt32 = 0x3c6ef372, h3: UInt32 = 0xa54ff53a
        var h4: UInt32 = 0x510e527f, h5: UInt32 = 0x9b05688c, h6: UInt32 = 0x1f83d9ab, h7: UInt32 = 0x5be0cd19
        var w = (UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0),
                 UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0))

        /// One 64-byte block at `p`. The message schedule is a 16-word ring.
        mutating func block(_ p: UnsafePointer<UInt8>) {
            withUnsafeMutableBytes(of: &w) { raw in
                let w = raw.bindMemory(to: UInt32.self)
                for t in 0..<16 {
                    w[t] = UInt32(p[4 * t]) << 24 | UInt32(p[4 * t + 1]) << 16 | UInt32(p[4 * t + 2]) << 8 | UInt32(p[4 * t + 3])
                }
                var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7
                TapSHA256.k.withUnsafeBufferPointer { k in
                    for t in 0..<64 {
                        let wt: UInt32
                        if t < 16 {
                            wt = w[t]
                        } else {
                            let x = w[(t - 15) & 15], y = w[(t - 2) & 15]
                            let s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3)
                            let s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >> 10)
                            wt = w[t & 15] &+ s0 &+ w[(t - 7) & 15] &+ s1
                            w[t & 15] = wt
                        }
                        let t1 = h &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k[t] &+ wt
                        let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                        h = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
                    }
                }
                h0 &+= a; h1 &+= b; h2 &+= c; h3 &+= d; h4 &+= e; h5 &+= f; h6 &+= g; h7 &+= h
            }
        }
    }

}

@inline(__always) private func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }
