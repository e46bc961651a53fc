/// The placeholder that replaces a sensitive value (docs/TAP.md §2, step 4):
/// `{"redacted":true,"sha256":"<64 lowercase hex>","bytes":N}`, exactly these bytes.
enum TapMarker {
    private static let head = Array(#"{"redacted":true,"sha256":""#.utf8)
    private static let middle = Array(#"","bytes":"#.utf8)

    /// The marker for `content`, whose digest `digest` computes (32 bytes).
    static func marker(for content: [UInt8], digest: ([UInt8]) -> [UInt8]) -> [UInt8] {
        let hex = Array("0123456789abcdef".utf8)
        var out = head
        out.reserveCapacity(head.count + 64 + middle.count + 21)
        for byte in digest(content) {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 15)])
        }
        out.append(contentsOf: middle)
        out.append(contentsOf: String(content.count).utf8)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Whether `compact` (a value without whitespace outside strings) is a marker.
    static func isMarker(_ compact: [UInt8]) -> Bool {
        let hexEnd = head.count + 64
        guard compact.count > hexEnd + middle.count + 1,
              compact.starts(with: head),
              compact[head.count..<hexEnd].allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
              compact[hexEnd..<(hexEnd + middle.count)].elementsEqual(middle),
              compact.last == UInt8(ascii: "}") else { return false }
        let digits = compact[(hexEnd + middle.count)..<(compact.count - 1)]
        guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return false }
        return digits.count == 1 || digits.first != UInt8(ascii: "0")
    }
}
