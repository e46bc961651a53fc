import BridgeJSON
import Testing

/// The exact answer for every `i_` file of JSONTestSuite, as documented in docs/JSON.md:
/// numbers accepted with their lexeme; invalid UTF-8, lone surrogates and UTF-16
/// rejected; a BOM rejected; 500 nested arrays rejected by the depth limit.
struct ImplementationDefinedTests {
    static let rejections: [String: (JSONError.Code, Int)] = [
        "i_object_key_lone_2nd_surrogate.json": (.loneSurrogate, 2),
        "i_string_1st_surrogate_but_2nd_missing.json": (.loneSurrogate, 2),
        "i_string_1st_valid_surrogate_2nd_invalid.json": (.loneSurrogate, 8),
        "i_string_UTF-16LE_with_BOM.json": (.unexpectedByte, 0),
        "i_string_UTF-8_invalid_sequence.json": (.invalidUTF8, 7),
        "i_string_UTF8_surrogate_U+D800.json": (.invalidUTF8, 2),
        "i_string_incomplete_surrogate_and_escape_valid.json": (.loneSurrogate, 2),
        "i_string_incomplete_surrogate_pair.json": (.loneSurrogate, 2),
        "i_string_incomplete_surrogates_escape_valid.json": (.loneSurrogate, 8),
        "i_string_invalid_lonely_surrogate.json": (.loneSurrogate, 2),
        "i_string_invalid_surrogate.json": (.loneSurrogate, 2),
        "i_string_invalid_utf-8.json": (.invalidUTF8, 2),
        "i_string_inverted_surrogates_U+1D11E.json": (.loneSurrogate, 2),
        "i_string_iso_latin_1.json": (.invalidUTF8, 2),
        "i_string_lone_second_surrogate.json": (.loneSurrogate, 2),
        "i_string_lone_utf8_continuation_byte.json": (.invalidUTF8, 2),
        "i_string_not_in_unicode_range.json": (.invalidUTF8, 2),
        "i_string_overlong_sequence_2_bytes.json": (.invalidUTF8, 2),
        "i_string_overlong_sequence_6_bytes.json": (.invalidUTF8, 2),
        "i_string_overlong_sequence_6_bytes_null.json": (.invalidUTF8, 2),
        "i_string_truncated-utf-8.json": (.invalidUTF8, 2),
        "i_string_utf16BE_no_BOM.json": (.unexpectedByte, 0),
        "i_string_utf16LE_no_BOM.json": (.unexpectedByte, 1),
        "i_structure_500_nested_arrays.json": (.tooDeep, 64),
        "i_structure_UTF-8_BOM_empty_object.json": (.unexpectedByte, 0),
    ]

    @Test func everyFileHasADocumentedAnswer() {
        let files = Fixtures.suiteFiles(prefix: "i_")
        #expect(files.count == 35)
        let numbers = files.filter { $0.hasPrefix("i_number_") }
        #expect(numbers.count == 10)
        #expect(Set(files).subtracting(numbers) == Set(Self.rejections.keys))
    }

    @Test(arguments: Fixtures.suiteFiles(prefix: "i_number_"))
    func numbersAreAcceptedWithTheirLexeme(_ name: String) throws {
        let input = try Fixtures.suiteBytes(name)
        let value = try JSONParser().parse(input).value
        let number = try #require(value.arrayValue?.first?.numberValue)
        let text = String(decoding: input, as: UTF8.self)
        #expect(text == "[\(number.lexeme)]" || text == "[\(number.lexeme)]\n", "\(name): \(text)")
        #expect(JSONWriter().string(value) == "[\(number.lexeme)]")
    }

    @Test(arguments: Fixtures.suiteFiles(prefix: "i_").filter { !$0.hasPrefix("i_number_") })
    func othersAreRejectedExactly(_ name: String) throws {
        let input = try Fixtures.suiteBytes(name)
        let expected = try #require(Self.rejections[name])
        let error = try #require(parseError(input), "\(name) must be rejected")
        #expect(error.code == expected.0, "\(name): \(error)")
        #expect(error.offset == expected.1, "\(name): \(error)")
    }
}
