import BridgeJSON
import Testing

/// Numbers keep their lexeme; conversions happen on demand.
struct NumberTests {
    @Test(arguments: ["0", "-0", "1.0", "1e2", "1E+2", "-1.5e-3", "0.000001", "1700000000123",
                      "123456789012345678901234567890", "1e400", "-1e-400", "9223372036854775808"])
    func lexemeIsKeptExactly(_ lexeme: String) throws {
        let v = try value("[\(lexeme)]")
        #expect(v.arrayValue?.first?.numberValue?.lexeme == lexeme)
        #expect(JSONWriter().string(v) == "[\(lexeme)]")
    }

    @Test func millisecondTimestampsAreExactInt64() throws {
        let n = try #require(try value("1700000000123").numberValue)
        #expect(n.int64 == 1_700_000_000_123)
        #expect(n.isIntegerLexeme)
        // Beyond 2^53 a Double would round; Int64 stays exact.
        #expect(try value("9007199254740993").numberValue?.int64 == 9_007_199_254_740_993)
        #expect(try value("9223372036854775807").numberValue?.int64 == .max)
        #expect(try value("-9223372036854775808").numberValue?.int64 == .min)
        #expect(try value("-0").numberValue?.int64 == 0)
    }

    @Test(arguments: ["1.5", "1e3", "1.0", "1E0", "9223372036854775808", "-9223372036854775809",
                      "123456789012345678901234567890"])
    func int64IsNilForNonIntegersAndOverflow(_ lexeme: String) throws {
        #expect(try value(lexeme).numberValue?.int64 == nil)
    }

    @Test func doubleConversion() throws {
        func d(_ s: String) throws -> Double? { try value(s).numberValue?.double }
        #expect(try d("1.5") == 1.5)
        #expect(try d("1e3") == 1000)
        #expect(try d("-1.5e-3") == -0.0015)
        #expect(try d("1700000000123") == 1_700_000_000_123)
        #expect(try d("1e400") == .infinity)
        #expect(try d("-1e400") == -.infinity)
        #expect(try d("1e-400") == 0)
        #expect(try d("0.1") == 0.1)
    }

    @Test func isIntegerLexeme() {
        #expect(JSONNumber(uncheckedLexeme: "12").isIntegerLexeme)
        #expect(!JSONNumber(uncheckedLexeme: "1.0").isIntegerLexeme)
        #expect(!JSONNumber(uncheckedLexeme: "1e2").isIntegerLexeme)
        #expect(!JSONNumber(uncheckedLexeme: "1E2").isIntegerLexeme)
    }

    @Test func validatingInitFollowsTheGrammar() {
        for ok in ["0", "-0", "12", "-0.5e+3", "1E-2", "123.456"] {
            #expect(JSONNumber(validating: ok)?.lexeme == ok, "\(ok)")
        }
        for bad in ["", "-", "01", "1.", ".5", "+1", "1e", " 1", "1 ", "0x10", "NaN", "1.5.2", "--1"] {
            #expect(JSONNumber(validating: bad) == nil, "\(bad)")
        }
    }

    @Test func numbersFromSwiftValues() {
        #expect(JSONNumber(Int64(42)).lexeme == "42")
        #expect(JSONNumber(Int64.min).lexeme == "-9223372036854775808")
        #expect(JSONNumber(3.0)?.lexeme == "3")
        #expect(JSONNumber(1.5)?.lexeme == "1.5")
        #expect(JSONNumber(-0.0)?.lexeme == "0")
        #expect(JSONNumber(Double.nan) == nil)
        #expect(JSONNumber(Double.infinity) == nil)
        // Whatever form Swift prints, it must be a valid JSON number that reads back.
        for x in [1e20, 1.5e-7, 0.1, -2.5e300, Double.leastNonzeroMagnitude, 1e15, 123456.789] {
            let n = JSONNumber(x)
            #expect(n.flatMap { JSONNumber(validating: $0.lexeme) } != nil, "\(x)")
            #expect(n?.double == x, "\(x)")
        }
    }

    @Test func equalityIsByLexeme() throws {
        #expect(try value("1.0") != value("1"))
        #expect(try value("1e2") != value("100"))
        #expect(try value("[1]") == value("[ 1 ]"))
    }
}
