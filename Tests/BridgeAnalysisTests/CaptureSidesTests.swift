@testable import BridgeAnalysis
import Testing

/// The sides `dual-capture-incomplete` reads are kept as bits (``CaptureSides``); any
/// other `side` value is read past, as the set of strings before it held it and no rule
/// looked at it.
struct CaptureSidesTests {
    @Test func onlyTheProtocolsSidesAreBits() {
        #expect(CaptureSides(side: "front") == .front)
        #expect(CaptureSides(side: "back") == .back)
        #expect(CaptureSides(side: "single") == .single)
        for other in ["Front", "BACK", "", "left", "front ", "single\u{0}"] {
            #expect(CaptureSides(side: other).isEmpty, "\(other)")
        }
    }

    /// A session that names many other sides (hostile, or a host's own words) reads the
    /// same as one that names only the protocol's: front and back captured completes the
    /// journey; front alone, or `Back` in another case, does not.
    @Test(arguments: [(["front", "back"], 0), (["front"], 1), (["front", "Back"], 1), (["single"], 0), (["back", "front"], 0)])
    func otherSidesChangeNothing(captured: [String], findings: Int) throws {
        var b = TapBuilder()
        b.start()
        var t: Int64 = 100
        for i in 0..<300 {
            // Sides no rule reads, requested and answered.
            b.request(t, "x-\(i)", "camera.document.capture", data: #"{"documentType":"id_card","side":"side-\#(i)"}"#)
            b.response(t + 5, "x-\(i)", "camera.document.capture")
            t += 10
        }
        for (i, side) in captured.enumerated() {
            b.request(t, "d-\(i)", "camera.document.capture", data: #"{"documentType":"id_card","side":"\#(side)"}"#)
            b.response(t + 5, "d-\(i)", "camera.document.capture")
            t += 10
        }
        b.webEvent(t, "journey.complete", data: #"{"status":"passed"}"#)
        let report = try Fixtures.analyze(text: b.text)
        #expect(report.countsBySlug["dual-capture-incomplete", default: 0] == findings)
    }

    /// A passport asks for one side (its type matched in any case): its `front` makes no
    /// two-picture journey; an id card's `front` after it does, though the side was seen
    /// before (the passport's request did not keep it).
    @Test func aPassportsFrontIsNotDual() throws {
        var b = TapBuilder()
        b.start()
        b.request(100, "d-1", "camera.document.capture", data: #"{"documentType":"PASSPORT","side":"front"}"#)
        b.response(105, "d-1", "camera.document.capture")
        b.webEvent(200, "journey.complete", data: #"{"status":"passed"}"#)
        #expect(try Fixtures.analyze(text: b.text).countsBySlug["dual-capture-incomplete"] == nil)

        var c = TapBuilder()
        c.start()
        c.request(100, "d-1", "camera.document.capture", data: #"{"documentType":"passport","side":"front"}"#)
        c.response(105, "d-1", "camera.document.capture")
        c.request(110, "d-2", "camera.document.capture", data: #"{"documentType":"id_card","side":"front"}"#)
        c.response(115, "d-2", "camera.document.capture")
        c.webEvent(200, "journey.complete", data: #"{"status":"passed"}"#)
        #expect(try Fixtures.analyze(text: c.text).countsBySlug["dual-capture-incomplete"] == 1)
    }
}
