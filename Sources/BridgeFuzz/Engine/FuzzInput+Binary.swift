/// A compact binary form of a ``FuzzInput`` for the worker's crash slot and the replay
/// pipe: `u32 step count`, then per step `u8 kind` (0 message, 1 toggle), `i64 delay`,
/// `u32 length`, bytes; integers little-endian.
extension FuzzInput {
    /// The binary form.
    public func binary() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(byteCount + steps.count * 13 + 4)
        append(UInt32(steps.count), to: &out)
        for s in steps {
            let (kind, bytes): (UInt8, [UInt8]) = switch s.kind {
            case .message(let m): (0, m)
            case .toggle(let t): (1, Array(t.rawValue.utf8))
            }
            out.append(kind)
            append(UInt64(bitPattern: s.delayMs), to: &out)
            append(UInt32(bytes.count), to: &out)
            out += bytes
        }
        return out
    }

    /// Reads the binary form; nil when it is truncated or inconsistent.
    public init?(binary b: UnsafeRawBufferPointer) {
        var i = 0
        func read<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard i + MemoryLayout<T>.size <= b.count else { return nil }
            var v: T = 0
            for k in 0..<MemoryLayout<T>.size { v |= T(b[i + k]) << (8 * k) }
            i += MemoryLayout<T>.size
            return v
        }
        guard let count = read(UInt32.self), count <= FuzzLimits.maxSteps else { return nil }
        var steps: [FuzzStep] = []
        for _ in 0..<count {
            guard i < b.count else { return nil }
            let kind = b[i]
            i += 1
            guard let delay = read(UInt64.self), let len = read(UInt32.self), i + Int(len) <= b.count else { return nil }
            let bytes = Array(b[i..<(i + Int(len))])
            i += Int(len)
            switch kind {
            case 0: steps.append(FuzzStep(delayMs: Int64(bitPattern: delay), message: bytes))
            case 1: steps.append(FuzzStep(delayMs: Int64(bitPattern: delay), .toggle(ScenarioToggle(rawValue: String(decoding: bytes, as: UTF8.self)))))
            default: return nil
            }
        }
        self.init(steps)
    }

    /// Reads the binary form from an array.
    public init?(binary bytes: [UInt8]) {
        guard let v = bytes.withUnsafeBytes({ FuzzInput(binary: $0) }) else { return nil }
        self = v
    }

    private func append<T: FixedWidthInteger>(_ v: T, to out: inout [UInt8]) {
        for k in 0..<MemoryLayout<T>.size { out.append(UInt8(truncatingIfNeeded: v >> (8 * k))) }
    }
}
