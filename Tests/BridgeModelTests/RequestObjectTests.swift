@testable import BridgeModel
import Testing

/// What an observer waits for (PROTOCOL.md §7): a JSON object with `"type":"request"` and a
/// non-empty string id. Truncated, oversized, hostile and near-miss inputs are not one,
/// and never trap.
@Suite struct RequestObjectTests {
    func ids(_ s: String) -> [String]? { RequestObject(Array(s.utf8))?.ids }

    @Test func aRequestObjectWithAnythingElseWrongIsOne() {
        #expect(ids(#"{"type":"request","correlationId":"a"}"#) == ["a"])
        #expect(RequestObject(Array(#"{"type":"request","correlationId":"a","payload":{"action":"x y"}}"#.utf8))?.action == "x y")
        #expect(ids(#"{"correlationId":"a","type":"request","correlationId":"b","correlationId":"a"}"#) == ["a", "b"])
    }

    @Test func nearMissesAreNot() {
        for s in [#"{"type":"request","correlationId":""}"#, #"{"type":"request","correlationId":7}"#,
                  #"{"type":"event","correlationId":"a"}"#, #"{"type":"Request","correlationId":"a"}"#,
                  #"[{"type":"request","correlationId":"a"}]"#, #"{"payload":{"type":"request","correlationId":"a"}}"#] {
            #expect(ids(s) == nil, "\(s)")
        }
    }

    @Test func truncatedOversizedAndHostileBytesAreNot() {
        let whole = #"{"type":"request","correlationId":"a"}"#
        for n in 0..<whole.utf8.count { #expect(RequestObject(Array(whole.utf8.prefix(n))) == nil) }
        let deep = #"{"type":"request","correlationId":"a","d":"# + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}"
        #expect(ids(deep) == nil)
        #expect(RequestObject(Array(#"{"type":"request","correlationId":"a"}"#.utf8) + [0xFF]) == nil)
        #expect(RequestObject([0xEF, 0xBB, 0xBF] + Array(whole.utf8)) == nil)
    }
}
