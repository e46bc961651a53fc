import BridgeJSON
import BridgeTestSupport
import Foundation
import Testing

/// Shared helpers for the BridgeJSON tests.
enum Fixtures {
    /// `Tests/Fixtures/JSONTestSuite/test_parsing` (the project's copy, with its licence).
    static let testParsing = "JSONTestSuite/test_parsing"

    /// JSONTestSuite file names with `prefix`, sorted.
    /// An absent folder gives no names here (a test's argument list cannot throw);
    /// `JSONTestSuiteTests.suiteIsPresent` then fails naming the missing path.
    static func suiteFiles(prefix: String) -> [String] {
        let names = (try? ProjectPaths.fixtureNames(in: testParsing, prefix: prefix)) ?? []
        return names.filter { $0.hasSuffix(".json") }
    }

    /// The bytes of one JSONTestSuite file.
    static func suiteBytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: ProjectPaths.fixture(testParsing + "/" + name)))
    }

    /// A realistic response envelope (PROTOCOL.md §1, §3) over several lines, with
    /// escapes, a surrogate pair, raw UTF-8, every literal and a fractional exponent.
    /// It ends with `}` (no trailing whitespace), so every proper prefix is incomplete.
    static let envelope: [UInt8] = Array("""
        {"version":"1.0","correlationId":"req-7f3a\\u002d01","type":"response",\r
         "timestamp":1700000000123,
         "payload":{"action":"camera.document.capture","status":"success",
          "data":{"imageData":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
           "width":640,"height":480,"mimeType":"image/png","note":"caf\\u00e9 \\ud83d\\ude00 déjà vu \\"quoted\\"\\n",
           "flash":false,"retake":true,"hint":null,"ratio":-1.5e-3,"sides":["front","back"],"meta":{}}}}
        """.utf8)
}

/// The error `input` is rejected with, or `nil` when it parses.
func parseError(_ input: [UInt8], limits: JSONLimits = .default) -> JSONError? {
    do {
        _ = try JSONParser(limits: limits).parse(input)
        return nil
    } catch {
        return error
    }
}

/// Expects `input` to be rejected with exactly `code` at `offset`, on `line`/`column`
/// (column defaults to `offset + 1`, right for single-line inputs).
func expectRejected(
    _ input: [UInt8], _ code: JSONError.Code, at offset: Int, line: Int = 1, column: Int? = nil,
    limits: JSONLimits = .default, reasonContains: String? = nil,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    guard let error = parseError(input, limits: limits) else {
        Issue.record("expected \(code) at \(offset), but the input parsed", sourceLocation: sourceLocation)
        return
    }
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    #expect(error.offset == offset, "\(error)", sourceLocation: sourceLocation)
    #expect(error.line == line, "\(error)", sourceLocation: sourceLocation)
    #expect(error.column == (column ?? offset + 1), "\(error)", sourceLocation: sourceLocation)
    #expect(!error.reason.isEmpty, sourceLocation: sourceLocation)
    if let reasonContains {
        #expect(error.reason.contains(reasonContains), "\(error.reason)", sourceLocation: sourceLocation)
    }
}

/// String-input form of ``expectRejected(_:_:at:line:column:limits:reasonContains:sourceLocation:)``.
func expectRejected(
    _ text: String, _ code: JSONError.Code, at offset: Int, line: Int = 1, column: Int? = nil,
    limits: JSONLimits = .default, reasonContains: String? = nil,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    expectRejected(Array(text.utf8), code, at: offset, line: line, column: column, limits: limits,
                   reasonContains: reasonContains, sourceLocation: sourceLocation)
}

/// Parses `text` (which must be valid) and returns its value.
func value(_ text: String, limits: JSONLimits = .default) throws -> JSONValue {
    try JSONParser(limits: limits).parse(text).value
}

/// `[0x22] + bytes + [0x22]` wrapped in an array: `["<bytes>"]`; the first content byte is
/// at offset 2.
func stringInArray(_ bytes: [UInt8]) -> [UInt8] {
    [UInt8(ascii: "["), UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\""), UInt8(ascii: "]")]
}

/// A small deterministic generator (SplitMix64) for reproducible mutations.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
