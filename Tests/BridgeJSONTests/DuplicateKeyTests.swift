import BridgeJSON
import Testing

/// Duplicate member names: reported with the key, both offsets and the depth; both
/// members kept, in source order.
struct DuplicateKeyTests {
    @Test func duplicateIsReportedAndBothMembersKept() throws {
        let doc = try JSONParser().parse("{\"a\":1,\"b\":2,\"a\":3}")
        #expect(doc.duplicateKeys == [DuplicateKey(key: "a", firstOffset: 1, duplicateOffset: 13, depth: 1)])
        let object = try #require(doc.value.objectValue)
        #expect(object.keys == ["a", "b", "a"])
        #expect(object.members.map(\.value) == [1, 2, 3])
        #expect(object.members.map(\.keyOffset) == [1, 7, 13])
        #expect(object.members.map(\.valueOffset) == [5, 11, 17])
        // Lookup answers the first member; the duplicate is still there to be seen.
        #expect(object["a"] == 1)
        #expect(object.count == 3)
    }

    @Test func depthCountsArraysAndObjects() throws {
        let doc = try JSONParser().parse("[{\"x\":{\"k\":1,\"k\":2}}]")
        #expect(doc.duplicateKeys == [DuplicateKey(key: "k", firstOffset: 7, duplicateOffset: 13, depth: 3)])
    }

    @Test func everyRepeatPointsAtTheFirstOccurrence() throws {
        let doc = try JSONParser().parse("{\"a\":1,\"a\":2,\"a\":3}")
        #expect(doc.duplicateKeys == [
            DuplicateKey(key: "a", firstOffset: 1, duplicateOffset: 7, depth: 1),
            DuplicateKey(key: "a", firstOffset: 1, duplicateOffset: 13, depth: 1),
        ])
        #expect(doc.value.objectValue?.count == 3)
    }

    @Test func largeObjectsFindDuplicatesToo() throws {
        // Over 12 members the parser switches from pairwise comparison to a table.
        var text = "{"
        var offsets: [String: Int] = [:]
        for k in 0..<20 {
            if k > 0 { text += "," }
            offsets["k\(k)"] = text.utf8.count
            text += "\"k\(k)\":\(k)"
        }
        let dupOffset = text.utf8.count + 1
        text += ",\"k5\":99,\"k19\":98}"
        let doc = try JSONParser().parse(text)
        #expect(doc.duplicateKeys == [
            DuplicateKey(key: "k5", firstOffset: offsets["k5"]!, duplicateOffset: dupOffset, depth: 1),
            DuplicateKey(key: "k19", firstOffset: offsets["k19"]!, duplicateOffset: dupOffset + 8, depth: 1),
        ])
        #expect(doc.value.objectValue?.count == 22)
    }

    @Test func escapedSpellingOfTheSameNameIsADuplicate() throws {
        let doc = try JSONParser().parse(#"{"a":1,"\u0061":2}"#)
        #expect(doc.duplicateKeys.map(\.key) == ["a"])
    }

    @Test func namesAreComparedByCodePointsNotNormalization() throws {
        // "é" precomposed (U+00E9) and decomposed (e + U+0301) are different names.
        let doc = try JSONParser().parse("{\"\u{E9}\":1,\"e\u{301}\":2}")
        #expect(doc.duplicateKeys.isEmpty)
        let object = try #require(doc.value.objectValue)
        #expect(object["\u{E9}"] == 1)
        #expect(object["e\u{301}"] == 2)
        #expect(JSONValue.string("\u{E9}") != JSONValue.string("e\u{301}"))
    }

    @Test func sameNameInDifferentObjectsIsNotADuplicate() throws {
        let doc = try JSONParser().parse("[{\"a\":1},{\"a\":2},{\"b\":{\"a\":3}}]")
        #expect(doc.duplicateKeys.isEmpty)
    }

    @Test func duplicatesAreReportedInDocumentOrderAcrossObjects() throws {
        let doc = try JSONParser().parse("{\"o\":{\"x\":1,\"x\":2},\"o\":3}")
        #expect(doc.duplicateKeys == [
            DuplicateKey(key: "x", firstOffset: 6, duplicateOffset: 12, depth: 2),
            DuplicateKey(key: "o", firstOffset: 1, duplicateOffset: 19, depth: 1),
        ])
    }

    @Test func editingHelpersTouchEveryCopy() {
        var object = JSONObject([.init(key: "a", value: 1), .init(key: "b", value: 2), .init(key: "a", value: 3)])
        object.set("a", 9)
        #expect(object.members.map(\.value) == [9, 2, 3])
        object.set("c", 4)
        #expect(object.keys == ["a", "b", "a", "c"])
        object.remove("a")
        #expect(object.keys == ["b", "c"])
    }
}
