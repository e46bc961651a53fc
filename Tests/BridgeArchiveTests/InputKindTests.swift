import BridgeTestSupport
@testable import BridgeArchive
import Foundation
import Testing

/// `InputKind.sniff` on the inputs a user or an attacker hands a reader: cut magics,
/// garbage, a first line longer than the sniff window, hostile JSON. Always a kind,
/// never a crash; and `PeekedInput` serves back exactly the bytes it read to judge.
struct InputKindTests {
    @Test func magicsAreRecognisedAndCutOnesAreNot() {
        #expect(InputKind.sniff([0x28, 0xB5, 0x2F, 0xFD, 0x04]) == .archive)
        #expect(InputKind.sniff([0x50, 0x2A, 0x4D, 0x18]) == .archive)  // skippable frame
        #expect(InputKind.sniff([0xD4, 0xC3, 0xB2, 0xA1]) == .packetCapture)
        #expect(InputKind.sniff([0x0A, 0x0D, 0x0D, 0x0A]) == .packetCapture)
        for cut in 1..<4 {
            #expect(InputKind.sniff(Array([0x28, 0xB5, 0x2F, 0xFD].prefix(cut))) != .archive)
        }
        #expect(InputKind.sniff([]) == .empty)
        #expect(InputKind.sniff(Array(" \n\t\r\n".utf8)) == .empty)
    }

    @Test func jsonLinesAreToldApartByTheirMembers() {
        #expect(InputKind.sniff(Array(#"{"t":1,"dir":"w2h","msg":{}}"#.utf8)) == .tapLog)
        #expect(InputKind.sniff(Array(#"{"t":1,"event":"open"}"#.utf8)) == .tapLog)
        #expect(InputKind.sniff(Array(#"{"bridgescope":"fixture"}"#.utf8)) == .tapLog)
        #expect(InputKind.sniff(Array(#"{"version":"1.0","correlationId":"a","type":"request"}"#.utf8)) == .envelopes)
        #expect(InputKind.sniff(Array(#"{"log":{"entries":[]}}"#.utf8)) == .har)
        #expect(InputKind.sniff(Array(#"{"x":1}"#.utf8)) == .unknown)
        #expect(InputKind.sniff(Array("[1,2]".utf8)) == .envelopes)
    }

    @Test func hostileAndTruncatedTextNeverCrashes() {
        let cases: [[UInt8]] = [
            Array("{".utf8), Array(#"{"t":"#.utf8), Array(String(repeating: "[", count: 100_000).utf8),
            Array(String(repeating: "{\"a\":", count: 10_000).utf8), [0xFF, 0xFE, 0x00, 0x7B], [0x7B, 0xC0, 0x80],
            (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) },
        ]
        for c in cases { _ = InputKind.sniff(c) }
    }

    @Test func aFirstLineLongerThanTheWindowIsJudgedByItsFirstKeys() {
        let big = String(repeating: "A", count: InputKind.sniffBytes)
        let tap = Array(#"{"t":1795000000000,"dir":"h2w","conn":"c1","msg":{"payload":{"data":{"image":""#.utf8) + Array(big.utf8)
        #expect(InputKind.sniff(Array(tap.prefix(InputKind.sniffBytes))) == .tapLog)
        let envelope = Array(#"{"version":"1.0","correlationId":"x","payload":{"data":""#.utf8) + Array(big.utf8)
        #expect(InputKind.sniff(Array(envelope.prefix(InputKind.sniffBytes))) == .envelopes)
    }

    @Test func peekedInputServesTheSniffedBytesAgainAndThenTheRest() throws {
        let path = TestScratch.rootURL.appendingPathComponent("peek-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bytes = (0..<(InputKind.sniffBytes * 3 + 17)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let input = try PeekedInput(path: path)
        var back: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 5_000)
        while true {
            let n = try chunk.withUnsafeMutableBytes { try input.read(into: $0) }
            if n == 0 { break }
            back += chunk[0..<n]
        }
        #expect(back == bytes)
    }

    @Test func aDirectoryOrAMissingFileIsAClearError() {
        #expect(throws: ArchiveError.self) { try PeekedInput(path: TestScratch.rootURL.path) }
        #expect(throws: ArchiveError.self) { try PeekedInput(path: "/nonexistent/\(UUID().uuidString)") }
    }
}
