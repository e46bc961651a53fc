extension JSONBytes {
    /// The run of ASCII digits at `start`, at most `maxDigits` of them (at most 18, so
    /// the value fits): their value and where they stop (`start` when there is none).
    ///
    /// Eight bytes at a time where `b` has them (simdjson's idea, with the run's length
    /// found in the word too): the number of leading digits is where the first
    /// non-digit byte is, and that many digits are turned into their value in three
    /// multiplies, whatever the count. A record's 19-digit time took 19 multiply-adds in
    /// a chain, each waiting for the one before (about 4% of `analyze`'s instructions for
    /// the two integers of every record line).
    @inline(__always)
    public static func leadingDigits(_ b: UnsafeRawBufferPointer, from start: Int, max maxDigits: Int) -> (value: UInt64, end: Int) {
        precondition(maxDigits <= 18, "leadingDigits: at most 18 digits fit unchecked")
        var j = start
        var v: UInt64 = 0
        let stop = start &+ maxDigits
        if let base = b.baseAddress {
            while j &+ 8 <= b.count, j < stop {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: j, as: UInt64.self))
                let n = Swift.min(digitCount(word), stop &- j)
                guard n > 0 else { return (v, j) }
                v = v &* powerOfTen(n) &+ value(of: word, digits: n)
                j &+= n
                if n < 8 { return (v, j) }
            }
        }
        // The last bytes of `b`, one at a time.
        while j < b.count, j < stop {
            let d = b[j] &- UInt8(ascii: "0")
            guard d <= 9 else { break }
            v = v &* 10 &+ UInt64(d)
            j &+= 1
        }
        return (v, j)
    }

    /// How many of the eight bytes of `word` (first byte lowest) are ASCII digits before
    /// the first that is not (8: all are). A byte is a digit when its high nibble is 3
    /// and stays 3 when 6 is added (0x30-0x39); a carry out of a byte can only come
    /// from one that is not a digit, and only changes the bytes after it.
    @inline(__always)
    static func digitCount(_ word: UInt64) -> Int {
        let high = word & 0xF0F0_F0F0_F0F0_F0F0
        let plusSix = (word &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0
        let notDigits = (high ^ 0x3030_3030_3030_3030) | (plusSix ^ 0x3030_3030_3030_3030)
        return notDigits.trailingZeroBitCount &>> 3
    }

    /// The value of the first `n` (1-8) bytes of `word`, all digits: moved to the top of
    /// the word so that zero bytes lead, then paired, paired again and again.
    @inline(__always)
    static func value(of word: UInt64, digits n: Int) -> UInt64 {
        var v = (word & 0x0F0F_0F0F_0F0F_0F0F) &<< UInt64(8 &* (8 &- n))
        v = (v &* 10 &+ (v &>> 8)) & 0x00FF_00FF_00FF_00FF
        v = (v &* 100 &+ (v &>> 16)) & 0x0000_FFFF_0000_FFFF
        return (v &* 10_000 &+ (v &>> 32)) & 0xFFFF_FFFF
    }

    /// 10 to the power `n` (0-8), without a table (a global table is read through a
    /// `swift_once` check).
    @inline(__always)
    static func powerOfTen(_ n: Int) -> UInt64 {
        switch n {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1_000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        default: 100_000_000
        }
    }
}
