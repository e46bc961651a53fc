import BridgeArchive
import BridgeHost
import BridgeJSON
@testable import BridgeReplay
import Foundation
import Testing

/// Each normalization rule, the pointer patterns, the image summaries and the message
/// differ.
struct NormalizationTests {
    func msg(_ text: String, _ dir: ArchiveDirection = .hostToWeb) -> RecordedMessage {
        RecordedMessage(time: 0, direction: dir, bytes: Array(text.utf8))
    }

    func png(_ w: Int, _ h: Int, shade: UInt8 = 0) throws -> String {
        let rgb = [UInt8](repeating: shade, count: w * h * 3)
        return Data(try PNGEncoder.encode(rgb: rgb, width: w, height: h)).base64EncodedString()
    }

    func jpeg(_ w: Int, _ h: Int, shade: UInt8 = 0) throws -> String {
        var rgb = [UInt8](repeating: shade, count: w * h * 3)
        for i in stride(from: 0, to: rgb.count, by: 7) { rgb[i] = UInt8(i % 251) }
        return Data(try JPEGEncoder.encode(rgb: rgb, width: w, height: h)).base64EncodedString()
    }

    func imageResponse(_ b64: String, mime: String = "image/png", w: Int = 8, h: Int = 4) -> RecordedMessage {
        msg(Env.response("d", "camera.document.capture",
                         data: "{\"imageData\":\"\(b64)\",\"width\":\(w),\"height\":\(h),\"mimeType\":\"\(mime)\"}"))
    }

    @Test func timestampsAreIgnoredByDefaultAndComparedWhenExact() {
        let a = msg(Env.response("q", "capability.query", ts: 1_700_000_000_000))
        let b = msg(Env.response("q", "capability.query", ts: 1_700_000_999_999))
        #expect(MessageDiffer().diff(a, b).isEmpty)
        let exact = MessageDiffer(rules: .exact).diff(a, b)
        #expect(exact.map(\.pointer) == ["/timestamp"])
        #expect(exact.first?.expected == "1700000000000" && exact.first?.actual == "1700000999999")
    }

    @Test func hostEventIDsAreIgnoredButResponseIDsAreNot() {
        let a = msg(Env.event("ios-event-AAAA", "host.ready")), b = msg(Env.event("ios-event-BBBB", "host.ready"))
        #expect(MessageDiffer().diff(a, b).isEmpty)
        #expect(MessageDiffer(rules: .exact).diff(a, b).map(\.pointer) == ["/correlationId"])
        let r1 = msg(Env.response("x", "a.b")), r2 = msg(Env.response("y", "a.b"))
        #expect(MessageDiffer().diff(r1, r2).map(\.pointer) == ["/correlationId"])
    }

    @Test func imagesCompareByTypeDimensionsAndDecodabilityNotBytes() throws {
        let black = try png(8, 4), grey = try png(8, 4, shade: 128)
        #expect(black != grey)
        #expect(MessageDiffer().diff(imageResponse(black), imageResponse(grey)).isEmpty)
        // Exact rules see the bytes.
        #expect(MessageDiffer(rules: .exact).diff(imageResponse(black), imageResponse(grey)).map(\.pointer)
                == ["/payload/data/imageData"])
        // Other dimensions: reported at the image, by what differs.
        let wide = try png(16, 4)
        let d = MessageDiffer().diff(imageResponse(black), imageResponse(wide, w: 8))
        #expect(d.map(\.pointer) == ["/payload/data/imageData/(width)"])
        #expect(d.first?.expected == "8" && d.first?.actual == "16")
        // Another format.
        let j = try jpeg(8, 4)
        let f = MessageDiffer().diff(imageResponse(black), imageResponse(j))
        #expect(f.map(\.pointer) == ["/payload/data/imageData/(mimeType)"])
    }

    @Test func aTruncatedImageIsNotDecodable() throws {
        let full = try png(32, 32, shade: 9)
        let cut = String(full.prefix((full.count / 2) / 4 * 4))
        #expect(ImageSummary(base64: full) == ImageSummary(base64: full))
        #expect(ImageSummary(base64: full).decodable)
        #expect(ImageSummary(base64: full).description == "image/png 32x32")
        let s = ImageSummary(base64: cut)
        #expect(s.mimeType == "image/png" && s.width == 32 && !s.decodable)
        let d = MessageDiffer().diff(imageResponse(full), imageResponse(cut))
        #expect(d.map(\.pointer) == ["/payload/data/imageData/(decodable)"])
        // Not base64 at all, and not an image.
        #expect(ImageSummary(base64: "!!!!").mimeType == nil)
        #expect(ImageSummary(base64: Data("hello world!".utf8).base64EncodedString()).description == "not an image")
    }

    @Test func jpegDimensionsComeFromTheFrameHeader() throws {
        let s = ImageSummary(base64: try jpeg(24, 10))
        #expect(s.mimeType == "image/jpeg" && s.width == 24 && s.height == 10 && s.decodable)
        // The stub cameras' own images.
        let doc = StubDocumentCamera().capture(side: "front")
        let summary = ImageSummary(base64: Data(doc.imageData).base64EncodedString())
        #expect(summary.width == doc.width && summary.height == doc.height && summary.mimeType == doc.mimeType)
    }

    @Test func ignorePatternsCoverMembersWildcardsAndDescendants() throws {
        let a = msg(Env.response("c", "x.y", data: "{\"ref\":\"r-1\",\"items\":[{\"id\":1,\"n\":\"a\"},{\"id\":2,\"n\":\"b\"}],\"deep\":{\"k\":{\"stamp\":1}}}"))
        let b = msg(Env.response("c", "x.y", data: "{\"ref\":\"r-2\",\"items\":[{\"id\":7,\"n\":\"a\"},{\"id\":8,\"n\":\"b\"}],\"deep\":{\"k\":{\"stamp\":2}}}"))
        #expect(Set(MessageDiffer().diff(a, b).map(\.pointer))
                == ["/payload/data/ref", "/payload/data/items/0/id", "/payload/data/items/1/id", "/payload/data/deep/k/stamp"])
        var rules = NormalizationRules()
        rules.ignored = try ["/payload/data/ref", "/payload/data/items/*/id", "/**/stamp"].map(JSONPointerPattern.init)
        #expect(MessageDiffer(rules: rules).diff(a, b).isEmpty)
        rules.ignored = [try JSONPointerPattern("/payload/data")]
        #expect(MessageDiffer(rules: rules).diff(a, b).isEmpty, "a pattern covers everything inside")
    }

    @Test func pointerPatternsFollowRFC6901() throws {
        #expect(try JSONPointerPattern("/a~1b/c~0d").segments == ["a/b", "c~d"])
        #expect(try JSONPointerPattern("").segments == [])
        #expect(try JSONPointerPattern("/").segments == [""])
        #expect(JSONPointerPattern.pointer(["a/b", "c~d"]) == "/a~1b/c~0d")
        #expect(throws: ReplayError.self) { try JSONPointerPattern("payload/data") }
        do {
            _ = try JSONPointerPattern("/ab/c~2")
            Issue.record("accepted ~2")
        } catch {
            #expect(error.code == .usage)
            #expect(error.message.contains("byte 5"), "\(error.message)")
        }
        #expect(throws: ReplayError.self) { try JSONPointerPattern("/" + String(repeating: "a", count: 5000)) }
        let p = try JSONPointerPattern("/a/**/z")
        #expect(p.covers(["a", "z"]) && p.covers(["a", "b", "c", "z"]) && p.covers(["a", "z", "q"]))
        #expect(!p.covers(["b", "z"]) && !p.covers(["a", "b"]))
    }

    @Test func valuesCompareStructurallyNotByLayout() {
        // Member order, number spelling: not differences. Array order, types: differences.
        let a = msg("{\"version\":\"1.0\",\"correlationId\":\"c\",\"type\":\"response\",\"timestamp\":1,\"payload\":{\"action\":\"a\",\"status\":\"success\",\"data\":{\"x\":1.0,\"y\":[1,2]}}}")
        let b = msg("{\"type\":\"response\",\"version\":\"1.0\",\"timestamp\":2,\"correlationId\":\"c\",\"payload\":{\"data\":{\"y\":[1,2],\"x\":1},\"status\":\"success\",\"action\":\"a\"}}")
        #expect(MessageDiffer().diff(a, b).isEmpty)
        let c = msg("{\"version\":\"1.0\",\"correlationId\":\"c\",\"type\":\"response\",\"timestamp\":1,\"payload\":{\"action\":\"a\",\"status\":\"success\",\"data\":{\"x\":\"1\",\"y\":[2,1,3]}}}")
        let d = MessageDiffer().diff(a, c)
        #expect(d.map(\.pointer) == ["/payload/data/x", "/payload/data/y/0", "/payload/data/y/1", "/payload/data/y/2"])
        #expect(d.last?.expected == "absent" && d.last?.actual == "3", "\(d)")
    }

    @Test func messagesThatAreNotJSONCompareAsBytes() {
        let d = MessageDiffer().diff(msg("not json"), msg("not json either"))
        #expect(d.count == 1 && d[0].pointer == "" && d[0].expected == "not json")
        #expect(MessageDiffer().diff(msg("same"), msg("same")).isEmpty)
    }

    @Test func aFloodOfDifferencesIsCappedAndCounted() {
        let keys = (0..<50).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let other = (0..<50).map { "\"k\($0)\":\($0 + 1)" }.joined(separator: ",")
        let d = MessageDiffer().diff(msg(Env.response("c", "a", data: "{\(keys)}")), msg(Env.response("c", "a", data: "{\(other)}")))
        #expect(d.count == ReplayLimits.maxDifferencesPerMessage + 1)
        #expect(d.last?.actual == "and 30 more difference(s)")
    }
}
