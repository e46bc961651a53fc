import BridgeTestSupport
import Foundation
import Testing

/// An SDK app's two taps (docs/TAP.md §5, "iOS with the seeds' SDK"): the page's
/// JavaScript tap and the app's Swift tap, imported together with `record --tap`, make a
/// two-sided archive; each tap numbers its own files, so neither is a gap.
struct TwoSidedTapImportTests {
    @Test func aPageTapAndAnAppTapImportAsOneTwoSidedArchive() throws {
        let dir = TestScratch.rootURL.appendingPathComponent("two-taps-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let query = #"{"version":"1.0","correlationId":"r1","type":"request","timestamp":1764050000000,"payload":{"action":"capability.query"}}"#
        let nfc = #"{"version":"1.0","correlationId":"r2","type":"request","timestamp":1764050000000,"payload":{"action":"nfc.read","data":{}}}"#
        let web = """
            {"t":1764050000000,"event":"tap","tap":"js","version":1,"seq":1,"first":true,"redacted":true}
            {"t":1764050000120,"dir":"w2h","conn":"v1@web","msg":\(query)}
            {"t":1764050000121,"dir":"w2h","conn":"v1@web","msg":\(nfc),"crossing":{"delivered":false,"changes":["payload.data.cb: a function; WebKit does not deliver a message that holds one"]}}

            """
        let native = """
            {"t":1764050000000,"event":"tap","tap":"swift","version":1,"seq":1,"first":true,"redacted":true}
            {"t":1764050000123,"dir":"w2h","conn":"v1@native","msg":\(query)}

            """
        try web.write(to: dir.appendingPathComponent("web.ndjson"), atomically: true, encoding: .utf8)
        try native.write(to: dir.appendingPathComponent("native.ndjson"), atomically: true, encoding: .utf8)
        let archive = dir.appendingPathComponent("both.bsz").path
        let r = try runBridgescope(["record", "-o", archive, "--tap", dir.appendingPathComponent("web.ndjson").path,
                                    "--tap", dir.appendingPathComponent("native.ndjson").path])
        #expect(r.status == 0, "\(r.stderr)")
        let cat = try runBridgescope(["cat", archive])
        #expect(!cat.stdout.contains("\"event\":\"gap\""), "\(cat.stdout)")
        #expect(cat.stdout.contains("\"event\":\"crossing\",\"conn\":\"v1@web\""), "\(cat.stdout)")
        let a = try runBridgescope(["analyze", archive])
        #expect(a.stdout.contains("BRG300 bridge-not-delivered ×1: the page posted request nfc.read (id r2"), "\(a.stdout)")
        // Two files of one tap out of order are still a gap.
        let again = try runBridgescope(["record", "-o", archive, "--tap", dir.appendingPathComponent("native.ndjson").path,
                                        "--tap", dir.appendingPathComponent("native.ndjson").path])
        #expect(again.status == 1)
        #expect(try runBridgescope(["cat", archive]).stdout.contains("comes after file 1"))
    }
}
