import BridgeJSON
import BridgeProtocol
import Testing

/// The decoder never traps, hangs or loses its place on hostile input.
struct HostileInputTests {
    let decoder = EnvelopeDecoder()
    static let envelope = Array(#"{"version":"1.0","correlationId":"c-1","type":"response","timestamp":1700000000000,"payload":{"action":"camera.selfie.capture","status":"error","error":{"code":"BUSY","message":"A camera.selfie capture request is already in progress","recoverable":true},"data":{"ü":"\ud83d\ude00"}}}"#.utf8)

    @Test func everyTruncationIsAFindingNeverACrash() {
        let full = Self.envelope
        #expect(decoder.decode(full).findings.isEmpty)
        for cut in 0..<full.count {
            let r = decoder.decode(Array(full[..<cut]))
            #expect(r.envelope == nil)
            let f = r.findings.first
            #expect(f?.slug == "malformed-json")
            #expect((f?.offset ?? -1) >= 0 && (f?.offset ?? .max) <= cut)
        }
    }

    @Test func deepNestingInDataIsTooDeep() {
        let data = String(repeating: #"{"a":"#, count: 70) + "1" + String(repeating: "}", count: 70)
        let text = #"{"version":"1.0","correlationId":"a","type":"event","timestamp":1700000000000,"payload":{"action":"a.b","data":"# + data + "}}"
        #expect(decoder.decode(text).findings.map(\.slug) == ["too-deep"])
    }

    @Test func hundredThousandOpeningBracketsDoNotOverflowTheStack() {
        let r = decoder.decode(Array(repeating: UInt8(ascii: "["), count: 100_000))
        #expect(r.findings.map(\.slug) == ["too-deep"])
    }

    @Test func wrongTypesEverywhereAreAllReported() {
        let text = #"{"version":1,"correlationId":[],"type":{},"timestamp":true,"payload":"x"}"#
        let r = decoder.decode(text)
        #expect(r.findings.filter { $0.slug == "wrong-field-type" }.count == 5)
        #expect(r.envelope == nil)
    }

    @Test func hugeCorrelationIdIsKeptWhole() {
        let id = String(repeating: "x", count: 1 << 20)
        let text = #"{"version":"1.0","correlationId":""# + id + #"","type":"event","timestamp":1700000000000,"payload":{"action":"a.b"}}"#
        let r = decoder.decode(text)
        #expect(r.findings.isEmpty)
        #expect(r.envelope?.correlationId.utf8.count == 1 << 20)
    }

    @Test func hugeAndNegativeTimestamps() {
        for (ts, slug) in [("99999999999999999999999", "timestamp-invalid"), ("-1", "timestamp-invalid"),
                           ("-0", nil), ("0", "timestamp-in-seconds"), ("1e3", "timestamp-invalid")] as [(String, String?)] {
            let text = #"{"version":"1.0","correlationId":"a","type":"event","timestamp":"# + ts + #","payload":{"action":"a.b"}}"#
            let s = decoder.decode(text).findings.map(\.slug)
            if let slug { #expect(s.contains(slug), "\(ts): \(s)") } else { #expect(s == ["timestamp-in-seconds"], "\(ts): \(s)") }
        }
    }

    @Test func randomByteFlipsNeverTrap() {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<5_000 {
            var bytes = Self.envelope
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                let i = Int(rng.next() % UInt64(bytes.count))
                bytes[i] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
            }
            let r = decoder.decode(bytes)
            if r.isValid { #expect(r.envelope != nil) }
        }
    }
}

/// A tiny deterministic generator for tests.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
