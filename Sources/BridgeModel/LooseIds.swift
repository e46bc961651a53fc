/// The values of every `"correlationId" : "…"` in some bytes, found by a scan that needs
/// no valid JSON around them: the ids a host whose parser reads more than this
/// project's (deeper nesting, other limits, lone surrogates) may answer.
package enum LooseIds {
    /// Longest id value the scan takes, in bytes.
    static let maxIdBytes = 4096

    /// The ids, in order of appearance (repeats kept), without escapes.
    package static func scan(_ bytes: [UInt8]) -> [String] {
        let key = Array(#""correlationId""#.utf8)
        let space: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        var out: [String] = []
        var i = 0
        while i + key.count < bytes.count {
            guard bytes[i] == 0x22, bytes[i..<(i + key.count)].elementsEqual(key) else { i += 1; continue }
            var j = i + key.count
            while j < bytes.count, space.contains(bytes[j]) { j += 1 }
            guard j < bytes.count, bytes[j] == UInt8(ascii: ":") else { i = j; continue }
            j += 1
            while j < bytes.count, space.contains(bytes[j]) { j += 1 }
            guard j < bytes.count, bytes[j] == 0x22 else { i = j; continue }
            let start = j + 1
            var end = start
            while end < bytes.count, bytes[end] != 0x22, bytes[end] != 0x5C, end - start < maxIdBytes { end += 1 }
            if end < bytes.count, bytes[end] == 0x22, end > start { out.append(String(decoding: bytes[start..<end], as: UTF8.self)) }
            i = end
        }
        return out
    }
}
