import BridgeJSON
/// Connection names of at most ``maxNameBytes`` bytes, each as two 64-bit numbers and a
/// length, with the index of its state in ``SessionAnalyzer/connections``: a record's
/// `conn` bytes are found by comparing numbers, where making a `String` of them and
/// comparing it with every name (the standard library's slow path for two different
/// strings) cost about 6% of the analysis thread. At most ``maxNames`` are kept; other
/// names take the `String` path.
struct ConnectionKeys {
    /// The longest name kept: 16 bytes.
    static let maxNameBytes = 16
    /// The most names kept: 64.
    static let maxNames = 64

    private var keys: [(low: UInt64, high: UInt64, count: Int, slot: Int)] = []

    /// The slot of the connection named `name`, if it is kept.
    func slot(of name: UnsafeRawBufferPointer) -> Int? {
        guard name.count <= Self.maxNameBytes, !keys.isEmpty else { return nil }
        let (low, high) = Self.numbers(name)
        return keys.withUnsafeBufferPointer { k in
            for e in k where e.low == low && e.high == high && e.count == name.count { return e.slot }
            return nil
        }
    }

    /// Keeps `name` (at most ``maxNameBytes`` bytes) at `slot`, while there is room.
    mutating func add(_ name: UnsafeRawBufferPointer, slot: Int) {
        guard name.count <= Self.maxNameBytes, keys.count < Self.maxNames, self.slot(of: name) == nil else { return }
        let (low, high) = Self.numbers(name)
        keys.append((low, high, name.count, slot))
    }

    /// The name's bytes (at most 16), zero-padded to 16, as two little-endian numbers.
    /// Read through the base address: `prefix` and `dropFirst` of the buffer were calls
    /// to the standard library's generic slicing, about 200 instructions per message.
    @inline(__always)
    static func numbers(_ name: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        guard let base = name.baseAddress else { return (0, 0) }
        let n = name.count
        if n <= 8 { return (JSONBytes.word(UnsafeRawBufferPointer(start: base, count: n)), 0) }
        return (JSONBytes.word(UnsafeRawBufferPointer(start: base, count: 8)),
                JSONBytes.word(UnsafeRawBufferPointer(start: base + 8, count: Swift.min(n - 8, 8))))
    }
}
