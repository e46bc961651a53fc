/// Makes the `<uuid>` part of host event ids (`ios-event-<uuid>`): version-4-shaped UUIDs
/// from a SplitMix64 stream, so a seeded host is reproducible and a randomly seeded one
/// is as unique as `UUID()`. Upper case, like iOS's `UUID().uuidString`.
public struct EventIDGenerator: Sendable, Hashable {
    private var state: UInt64

    /// Creates a generator; the same seed gives the same ids.
    public init(seed: UInt64) {
        state = seed
    }

    /// A generator seeded from the system's random source.
    public static func random() -> EventIDGenerator {
        EventIDGenerator(seed: UInt64.random(in: .min ... .max))
    }

    /// The next 64 random bits.
    public mutating func nextUInt64() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The next UUID, `XXXXXXXX-XXXX-4XXX-[89AB]XXX-XXXXXXXXXXXX`.
    public mutating func next() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        let a = nextUInt64(), b = nextUInt64()
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: a >> (8 * UInt64(i)))
            bytes[8 + i] = UInt8(truncatingIfNeeded: b >> (8 * UInt64(i)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (i, byte) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
