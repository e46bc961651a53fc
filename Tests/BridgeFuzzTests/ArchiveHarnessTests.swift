@testable import BridgeFuzz
import BridgeTestSupport
import Foundation
import Testing

/// The libFuzzer archive target's harness (`FuzzHarness.archiveReader`, tools/fuzz) on
/// the recorded sessions and damaged copies of them: its oracles (reading ends, records
/// in `seq` order, and `export --jsonl` by runs of plain lines byte for byte the export
/// reading by reading) hold; a violation stops the process, so this suite fails loudly.
@Suite struct ArchiveHarnessTests {
    @Test("the archive target's oracles hold on every recorded session, cut and with flipped bits")
    func oraclesHoldOnTheRecordedSessions() throws {
        let captures = ProjectPaths.root.appendingPathComponent("captures")
        let names = try FileManager.default.contentsOfDirectory(atPath: captures.path).filter { $0.hasSuffix(".bsz") }.sorted()
        #expect(names.count >= 5)
        var rng = SystemRandomNumberGenerator()
        var inputs = 0
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: captures.appendingPathComponent(name)))
            var variants = [bytes, Array(bytes.prefix(bytes.count / 2)), Array(bytes.prefix(bytes.count - 3))]
            for _ in 0..<20 {
                var flipped = bytes
                flipped[Int.random(in: 0..<flipped.count, using: &rng)] ^= UInt8(1) << UInt8.random(in: 0...7, using: &rng)
                variants.append(flipped)
            }
            for v in variants {
                v.withUnsafeBytes { FuzzHarness.archiveReader($0) }
                inputs += 1
            }
        }
        #expect(inputs == names.count * 23)
    }
}
