@testable import BridgeJSON
import Testing

/// The string scan's inline short path (``ParserState/stringEnd(_:from:)`` through
/// ``ParserState/shortStringEnd(_:from:)``, one or two SWAR words) against the general
/// loop (``ParserState/plainStringEnd(_:from:)``): the same end and stop on random
/// strings with quotes, backslashes, control bytes and UTF-8 (valid and not) at every
/// offset and length, and the short path taken only for a closing quote.
@Suite struct StringScanTests {
    @Test("the inline short path ends every string where the general loop does, on the same byte")
    func shortPathAgreesWithTheLoop() {
        // Mostly plain ASCII, with the bytes that stop or divert the scan mixed in.
        let alphabet: [UInt8] = Array("abcXYZ019 .-_:{}".utf8) + [0x22, 0x22, 0x5C, 0x0A, 0x1F, 0x7F, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x80, 0xFF]
        var rng = SystemRandomNumberGenerator()
        var shortTaken = 0, longer = 0
        for _ in 0..<20_000 {
            let n = Int.random(in: 0...48, using: &rng)
            let plainRun = Int.random(in: 0...n, using: &rng)
            let bytes = (0..<n).map { k in k < plainRun ? UInt8(ascii: "k") : alphabet.randomElement(using: &rng)! }
            bytes.withUnsafeBytes { b in
                for start in 0...n {
                    let general = ParserState.plainStringEnd(b, from: start)
                    #expect(ParserState.stringEnd(b, from: start) == general, "\(bytes) from \(start)")
                    if let end = ParserState.shortStringEnd(b, from: start) {
                        shortTaken += 1
                        if end - start >= 8 { longer += 1 }
                        #expect(general == (end, UInt8(ascii: "\"")))
                        #expect(end - start < 16)
                    }
                }
            }
        }
        #expect(shortTaken > 1_000 && longer > 100)
    }
}
