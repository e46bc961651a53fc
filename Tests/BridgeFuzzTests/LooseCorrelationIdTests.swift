@testable import BridgeFuzz
import BridgeModel
import Testing

/// The lenient checker's byte scan for correlation ids in bytes no parser accepted:
/// it never traps or loops on truncated, oversized or hostile input, and finds ids
/// whatever surrounds them.
struct LooseCorrelationIdTests {
    func ids(_ s: String) -> [String] { LooseIds.scan(Array(s.utf8)) }

    @Test func idsAreFoundInBrokenJSON() {
        #expect(ids(#"{"correlationId" : "a","correlationId":"b" , "x":[[[["#) == ["a", "b"])
        #expect(ids("{\"correlationId\"\n:\t\"c\"") == ["c"])
        #expect(ids(#"[{"payload":{"correlationId":"inner"}}"#) == ["inner"])
    }

    @Test func truncatedEscapedEmptyAndNonStringValuesGiveNothing() {
        for s in [#"{"correlationId":"abc"#, #"{"correlationId":"#, #"{"correlationId""#, #""correlationId"#,
                  #"{"correlationId":"a\"b"}"#, #"{"correlationId":""}"#, #"{"correlationId":42}"#,
                  #"{"correlationId"x:"a"}"#, "", "\""] {
            #expect(ids(s).isEmpty, "\(s)")
        }
    }

    @Test func hostileInputIsBounded() {
        // An id longer than 4 KiB is not taken; a million keys in a row and bytes that are
        // not UTF-8 end in time.
        #expect(ids(#"{"correlationId":""# + String(repeating: "x", count: 10_000) + #""}"#).isEmpty)
        let many = String(repeating: #""correlationId":"i","#, count: 50_000)
        #expect(ids(many).count == 50_000)
        var bytes: [UInt8] = Array(#"{"correlationId":""#.utf8) + [0xFF, 0xC0, 0x80] + Array(#""}"#.utf8)
        #expect(LooseIds.scan(bytes).count == 1)
        bytes = [UInt8](repeating: 0x22, count: 100_000)
        #expect(LooseIds.scan(bytes).isEmpty)
    }
}
