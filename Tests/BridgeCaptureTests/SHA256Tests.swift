import BridgeCapture
import BridgePcap
import BridgeProxy
import Testing

/// FIPS 180-4 / NIST CAVP example vectors.
struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func nistVectors(_ input: String, _ digest: String) {
        #expect(SHA256.hex(Array(input.utf8)) == digest)
    }

    @Test func oneMillionAs() {
        var h = SHA256()
        let chunk = [UInt8](repeating: 0x61, count: 1000)
        for _ in 0..<1000 { h.update(chunk) }
        let hex = h.finalize().map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        #expect(hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func paddingBoundaries() {
        // 55, 56, 63, 64 and 65 bytes exercise every padding branch; split updates agree.
        for n in [55, 56, 63, 64, 65, 119, 120, 128] {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            var split = SHA256()
            split.update(bytes.prefix(n / 3))
            split.update(bytes.dropFirst(n / 3))
            #expect(split.finalize() == SHA256.hash(bytes), "length \(n)")
        }
    }
}
