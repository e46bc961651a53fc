import BridgeJSON
import BridgeTestSupport
import Testing

/// Runs every parsing case of nst/JSONTestSuite from `Tests/Fixtures`.
struct JSONTestSuiteTests {
    static func files(prefix: String) -> [String] { Fixtures.suiteFiles(prefix: prefix) }
    static func bytes(_ name: String) throws -> [UInt8] { try Fixtures.suiteBytes(name) }

    @Test func suiteIsPresent() throws {
        _ = try ProjectPaths.fixture(Fixtures.testParsing)
        #expect(Self.files(prefix: "y_").count == 95)
        #expect(Self.files(prefix: "n_").count == 188)
        #expect(Self.files(prefix: "i_").count == 35)
    }

    @Test(arguments: files(prefix: "y_"))
    func accepts(_ name: String) throws {
        let input = try Self.bytes(name)
        #expect(throws: Never.self) { try JSONParser().parse(input) }
    }

    @Test(arguments: files(prefix: "n_"))
    func rejects(_ name: String) throws {
        let input = try Self.bytes(name)
        let error = #expect(throws: JSONError.self) { try JSONParser().parse(input) }
        if let error {
            #expect(error.offset >= 0 && error.offset <= input.count)
            #expect(error.line >= 1 && error.column >= 1)
            #expect(!error.reason.isEmpty)
        }
    }

    @Test(arguments: files(prefix: "i_"))
    func answersImplementationDefined(_ name: String) throws {
        let input = try Self.bytes(name)
        let accepted: Bool
        do { _ = try JSONParser().parse(input); accepted = true } catch { accepted = false }
        #expect(accepted == ImplementationDefinedChoices.accepts(name), "choice for \(name) (docs/JSON.md)")
    }
}

/// The documented choice for each `i_` group (see docs/JSON.md).
enum ImplementationDefinedChoices {
    static func accepts(_ name: String) -> Bool {
        // Numbers: the lexeme is kept, so huge, tiny and long numbers are all accepted.
        if name.hasPrefix("i_number_") { return true }
        // Everything else in the i_ set is non-UTF-8 text, lone surrogates, a BOM or
        // nesting past the depth limit: rejected.
        return false
    }
}
