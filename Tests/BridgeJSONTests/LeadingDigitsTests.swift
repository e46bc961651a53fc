import BridgeJSON
import Testing

/// `JSONBytes.leadingDigits` (eight digits at a time) against reading the digits one
/// by one: runs of every length at every place, next to every byte value (the digit
/// test's edges `/` and `:`, and bytes whose sum with 6 carries), cut by the cap and by
/// the end of the buffer.
struct LeadingDigitsTests {
    /// The digits one at a time, as the readers did before.
    static func reference(_ b: [UInt8], from start: Int, max: Int) -> (UInt64, Int) {
        var v: UInt64 = 0, j = start
        while j < b.count, j < start + max, b[j] >= 0x30, b[j] <= 0x39 {
            v = v * 10 + UInt64(b[j] - 0x30)
            j += 1
        }
        return (v, j)
    }

    static func leading(_ b: [UInt8], from start: Int, max: Int) -> (UInt64, Int) {
        let r = b.withUnsafeBytes { JSONBytes.leadingDigits($0, from: start, max: max) }
        return (r.value, r.end)
    }

    @Test func everyRunLengthBeforeEveryByte() {
        var rng = SplitMix64(state: 0xD161_75)
        for length in 0...20 {
            for stopper in 0...255 {
                let digits = (0..<length).map { _ in UInt8(0x30 + rng.next() % 10) }
                // Digits, the byte after them, then bytes that may be digits too.
                let tail = (0..<(rng.next() % 10)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                let b = [UInt8(ascii: ":")] + digits + [UInt8(stopper)] + tail
                for cap in [1, 7, 8, 9, 16, 18] {
                    let got = Self.leading(b, from: 1, max: cap), want = Self.reference(b, from: 1, max: cap)
                    #expect(got == want, "\(length) digits before \(stopper), cap \(cap): \(b)")
                }
            }
        }
    }

    @Test func runsThatReachTheEndOfTheBuffer() {
        for length in 0...20 {
            let b = (0..<length).map { UInt8(0x30 + ($0 * 7 + 3) % 10) }
            for start in 0...length {
                #expect(Self.leading(b, from: start, max: 18) == Self.reference(b, from: start, max: 18), "\(length) digits from \(start)")
            }
        }
        #expect(Self.leading([], from: 0, max: 18) == (0, 0))
    }

    @Test func randomBytesAtEveryStart() {
        var rng = SplitMix64(state: 0x5EED)
        for _ in 0..<3_000 {
            // Mostly digits, some of everything else.
            let b = (0..<(rng.next() % 40)).map { _ in rng.next() % 4 == 0 ? UInt8(truncatingIfNeeded: rng.next()) : UInt8(0x30 + rng.next() % 10) }
            for start in 0...b.count {
                #expect(Self.leading(b, from: start, max: 18) == Self.reference(b, from: start, max: 18), "\(b) from \(start)")
            }
        }
    }

    @Test func eighteenNines() {
        let b = Array(String(repeating: "9", count: 25).utf8)
        #expect(Self.leading(b, from: 0, max: 18) == (999_999_999_999_999_999, 18))
        #expect(Self.leading(b, from: 3, max: 18) == (999_999_999_999_999_999, 21))
    }
}
