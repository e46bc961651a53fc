extension SourceLocation {
    /// The locations of many offsets in one pass over `bytes` (the offsets in any order;
    /// the result in the same order): linear in the input plus the offsets, where one
    /// ``init(offset:in:)`` per offset would be quadratic (`validate` on an object of
    /// 80,000 duplicate keys).
    public static func locate(_ offsets: [Int], in bytes: UnsafeRawBufferPointer) -> [SourceLocation] {
        let order = offsets.indices.sorted { offsets[$0] < offsets[$1] }
        var result = [SourceLocation](repeating: SourceLocation(line: 1, column: 1), count: offsets.count)
        var line = 1, lineStart = 0, i = 0
        for index in order {
            let end = min(max(offsets[index], 0), bytes.count)
            while i < end {
                let c = bytes[i]
                if c == 0x0A || (c == 0x0D && !(i + 1 < bytes.count && bytes[i + 1] == 0x0A)) {
                    line += 1
                    lineStart = i + 1
                }
                i += 1
            }
            result[index] = SourceLocation(line: line, column: end - lineStart + 1)
        }
        return result
    }

    init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
}
