import BridgeHost
import Testing

/// The stdio line splitter, fed whole, byte by byte, and split at every offset.
struct LineSplitterTests {
    static let input = Array("{\"a\":1}\r\n\n{\"b\":2}\nlast".utf8)
    static let expected = [Array("{\"a\":1}".utf8), Array("{\"b\":2}".utf8), Array("last".utf8)]

    func run(_ chunks: [[UInt8]], max: Int = 1 << 20) -> [[UInt8]] {
        var s = LineSplitter(maxLineBytes: max)
        var out: [[UInt8]] = []
        for c in chunks { out += s.feed(c) }
        if let last = s.finish() { out.append(last) }
        return out
    }

    @Test func wholeByteByByteAndEverySplit() {
        #expect(run([Self.input]) == Self.expected)
        #expect(run(Self.input.map { [$0] }) == Self.expected)
        for cut in 0...Self.input.count {
            #expect(run([Array(Self.input[..<cut]), Array(Self.input[cut...])]) == Self.expected, "split at \(cut)")
        }
    }

    @Test func overlongLinesAreCutNotBuffered() {
        let long = [UInt8](repeating: 0x41, count: 10_000)
        let out = run([long, Array("\nok\n".utf8)], max: 100)
        #expect(out.count == 2)
        #expect(out[0].count == 101)
        #expect(out[1] == Array("ok".utf8))
        // Also when the long line arrives byte by byte.
        let out2 = run(long.map { [$0] } + [[0x0A]], max: 100)
        #expect(out2.map(\.count) == [101])
    }

    @Test func emptyInput() {
        #expect(run([]).isEmpty)
        #expect(run([Array("\n\n\r\n".utf8)]).isEmpty)
    }
}
