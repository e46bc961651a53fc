import BridgeReport
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// The one JUnit writer: counts computed from the cases, every outcome, and nothing from
/// a session can break the XML (checked with Foundation's XML parser).
@Suite struct JUnitDocumentTests {
    static let hostile = "a&b <c> \"d\" 'e' \u{1}\u{7F}\u{FFFE}]]>"

    func document() -> JUnitDocument {
        JUnitDocument(name: Self.hostile, suites: [
            .init(name: "s1 " + Self.hostile, time: "0.5", properties: [.init("seed", Self.hostile)], cases: [
                .init(className: "x." + Self.hostile, name: "passes"),
                .init(className: "x", name: "fails", outcome: .failed([.init(type: "t", message: Self.hostile, body: Self.hostile),
                                                                      .init(message: "second")])),
                .init(className: "x", name: "errs", outcome: .error(type: nil, message: Self.hostile)),
                .init(className: "x", name: "skips", outcome: .skipped("why")),
                .init(className: "x", name: "talks", systemOut: Self.hostile),
            ]),
            .init(name: "empty"),
        ])
    }

    @Test func countsComeFromTheCases() {
        let xml = document().render()
        #expect(xml.contains("tests=\"5\" failures=\"1\" errors=\"1\">"))
        #expect(xml.contains("tests=\"5\" failures=\"1\" errors=\"1\" skipped=\"1\" time=\"0.5\">"))
        #expect(xml.contains("<testsuite name=\"empty\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\">"))
        #expect(xml.components(separatedBy: "<failure").count == 3)
    }

    @Test func hostileTextNeverBreaksTheDocument() throws {
        let xml = document().render()
        #expect(!xml.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        let parser = XMLParser(data: Data(xml.utf8))
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
    }
}
