import BridgeReport
import BridgeTestSupport
import Foundation
import Testing

/// Issue 16, terminal injection: a connection id `\u{1B}[2J...` or an action with
/// `\u{1B}[1m` in a recorded session reached the terminal as raw ESC/BEL bytes through
/// `cat --format pretty` and the text report, and a 10 MB value was printed whole.
@Suite struct TerminalTextTests {
    @Test func controlCharactersAreShownNotSent() {
        let hostile = "conn\u{1B}[2J\u{07}\r\u{9B}x\u{2028}y\u{0}"
        let shown = TerminalText.render(hostile, colour: true)
        #expect(!shown.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(shown == #"conn\e[2J\a\r\u{9b}x\u{2028}y\u{0}"#)
        let painted = TerminalText.colourMark(31) + "red" + TerminalText.colourMark(0)
        #expect(TerminalText.render(painted, colour: true) == "\u{1B}[31mred\u{1B}[0m")
        #expect(TerminalText.render(painted, colour: false) == "red")
    }

    @Test func longLinesAreCutSayingHowMuch() {
        let shown = TerminalText.render(String(repeating: "a", count: 10_000) + "\nnext", colour: false, maxLineLength: 100)
        #expect(shown == String(repeating: "a", count: 100) + " … (9900 more characters)\nnext")
    }

    @Test func aHostileSessionReachesNoTerminalRaw() throws {
        let dir = TestScratch.rootURL.appendingPathComponent("bridgescope-tty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let tap = dir.appendingPathComponent("hostile.ndjson").path
        let envelope = #"{"version":"1.0","correlationId":"r1\u001b[1m","type":"request","timestamp":1700000000000,"payload":{"action":"x.\u001b[2Jy","data":{}}}"#
        let line = #"{"t":1700000000000,"dir":"w2h","conn":"c\u001b[2J\u0007\#(String(repeating: "z", count: 20_000))","msg":\#(envelope)}"#
        try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: tap))
        let archive = dir.appendingPathComponent("hostile.bsz").path
        #expect(try runBridgescope(["record", "-o", archive, "--tap", tap]).status == 0)
        for args in [["analyze", archive, "--color", "always"], ["cat", archive, "--format", "pretty"], ["analyze", tap]] {
            let r = try runBridgescope(args)
            let raw = r.stdout.unicodeScalars.filter { $0.value == 0x07 || ($0.value == 0x1B && true) }
            let own = r.stdout.components(separatedBy: "\u{1B}[").count - 1
            #expect(raw.count == own, "\(args): a raw control character from the session reached the output")
            #expect(!r.stdout.contains("\u{1B}[2J") && !r.stdout.contains("\u{07}"), "\(args)")
            #expect(!r.stdout.contains(String(repeating: "z", count: 5_000)), "\(args): a 20,000-character value printed whole")
        }
    }
}
