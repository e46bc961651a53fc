@testable import BridgeFuzz
import Testing

/// A kept stdio host process: the second and later cases send fresh correlation ids, so
/// a late answer to an earlier case is told apart exactly (issue 22).
@Suite struct FreshIdTests {
    func fresh(_ s: String, _ suffix: String = "~7") -> String {
        String(decoding: StdioTarget.freshen(Array(s.utf8), suffix: Array(suffix.utf8)), as: UTF8.self)
    }

    @Test func plainIdsGetTheCaseSuffixEverywhereTheyStand() {
        #expect(fresh(#"{"correlationId":"n-1","type":"request"}"#) == #"{"correlationId":"n-1~7","type":"request"}"#)
        #expect(fresh(#"{"correlationId" : "a.b:c_D-9","x":{"correlationId":"n-1"}}"#)
                == #"{"correlationId" : "a.b:c_D-9~7","x":{"correlationId":"n-1~7"}}"#)
        // duplicate keys keep agreeing with each other
        #expect(fresh(#"{"correlationId":"a","correlationId":"a"}"#) == #"{"correlationId":"a~7","correlationId":"a~7"}"#)
    }

    @Test func idsACaseTestsGoAsTheyAre() {
        let untouched = [
            #"{"correlationId":"","type":"request"}"#,                       // empty
            #"{"correlationId":"s-\u0000-1"}"#,                              // escapes
            #"{"correlationId":"é"}"#, #"{"correlationId":"😀"}"#,            // beyond ASCII
            #"{"correlationId":"\#(String(repeating: "x", count: 33))"}"#,   // longer than 32 bytes
            #"{"correlationId":42}"#, #"{"correlationId":null}"#,            // not a string
            #"{"correlationId":"unterminated"#, #"{"correlationId""#,         // cut short
            #"{"correlationIdX":"a"}"#, "not json at all",
        ]
        for line in untouched { #expect(fresh(line) == line, "\(line)") }
        let edge = #"{"correlationId":"\#(String(repeating: "x", count: 32))"}"#
        #expect(fresh(edge) == #"{"correlationId":"\#(String(repeating: "x", count: 32))~7"}"#)
    }

    @Test func aLineWithoutIdsIsTheSameArray() {
        let line = Array(#"{"type":"event","payload":{"action":"host.ready"}}"#.utf8)
        #expect(StdioTarget.freshen(line, suffix: Array("~2".utf8)) == line)
    }
}
