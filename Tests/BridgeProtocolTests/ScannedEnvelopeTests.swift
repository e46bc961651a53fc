@testable import BridgeProtocol
import Testing

/// ``ScannedEnvelope`` keeps its fields compactly (indices among the known values,
/// 32-bit offsets): every known value reads back as scanned.
struct ScannedEnvelopeTests {
    static func response(status: String, error: String = "") -> [UInt8] {
        Array(#"{"version":"1.0","correlationId":"r-1","type":"response","timestamp":1700000000000,"payload":{"action":"camera.document.capture","status":"\#(status)"\#(error),"data":{"n":1}}}"#.utf8)
    }

    static func scan(_ bytes: [UInt8], _ direction: Direction = .hostToWeb) -> ScannedEnvelope? {
        var scanner = EnvelopeScanner()
        return bytes.withUnsafeBytes { scanner.scan($0, direction: direction) }
    }

    @Test func everyKnownStatusAndErrorCodeReadsBackAsScanned() throws {
        for status in Status.known where status != .error && status != .unsupported {
            let s = try #require(Self.scan(Self.response(status: status.rawValue)), "\(status)")
            #expect(s.type == .response && s.status == status && s.errorCode == nil && s.errorRecoverable == nil)
            #expect(s.knownActionIndex == Action.known.firstIndex(of: .documentCapture))
            #expect(String(decoding: Self.response(status: status.rawValue)[s.actionBytes], as: UTF8.self) == "camera.document.capture")
        }
        for code in ErrorCode.known {
            for recoverable in [true, false] {
                let error = #","error":{"code":"\#(code.rawValue)","message":"m","recoverable":\#(recoverable)}"#
                let bytes = Self.response(status: "error", error: error)
                let s = try #require(Self.scan(bytes), "\(code)")
                #expect(s.status == .error && s.errorCode == code && s.errorRecoverable == recoverable)
                #expect(String(decoding: bytes[s.correlationId], as: UTF8.self) == "r-1")
                let data = try #require(s.data)
                #expect(String(decoding: bytes[data], as: UTF8.self) == #"{"n":1}"#)
                #expect(String(decoding: bytes[s.actionBytes], as: UTF8.self) == "camera.document.capture")
            }
        }
    }

    /// The size the type's documentation gives (on a 64-bit platform), and plain data: a
    /// list of scans is copied and freed as bytes, with no reference to count.
    @Test func aScanIsFortyBytesOfPlainData() {
        #expect(MemoryLayout<ScannedEnvelope>.size == 40)
        #expect(_isPOD(ScannedEnvelope.self))
    }

    @Test func everyTypeReadsBackAndSettersKeepTheOtherFields() throws {
        let request = Array(#"{"version":"1.0","correlationId":"q","type":"request","timestamp":1700000000000,"payload":{"action":"capability.query"}}"#.utf8)
        var s = try #require(Self.scan(request, .webToHost))
        #expect(s.type == .request && s.status == nil && s.data == nil && s.timestamp == 1_700_000_000_000)
        for type in MessageType.known {
            s.type = type
            #expect(s.type == type)
        }
        s.status = .acknowledged
        s.errorCode = nil
        s.errorRecoverable = false
        s.data = 3..<9
        #expect(s.status == .acknowledged && s.errorCode == nil && s.errorRecoverable == false && s.data == 3..<9)
        s.data = nil
        s.errorRecoverable = nil
        #expect(s.data == nil && s.errorRecoverable == nil && s.correlationId == 34..<35)
    }

    /// The scan says which of ``Action/known`` its action is (nil for any other), and a
    /// scan handed to another scanner (``EnvelopeScanner/reintern(_:in:)``) keeps it and
    /// reads its action there, though that scanner numbers its actions otherwise.
    @Test func everyKnownActionIsNamedByItsIndexAndReinternKeepsIt() throws {
        var scanner = EnvelopeScanner(), other = EnvelopeScanner()
        // `other` has met other actions first: its numbers are not `scanner`'s.
        for action in ["z.first", "z.second", "app.ping.later"] {
            let bytes = Array(#"{"version":"1.0","correlationId":"e","type":"event","timestamp":1700000000000,"payload":{"action":"\#(action)"}}"#.utf8)
            _ = try #require(bytes.withUnsafeBytes { other.scan($0, direction: .hostToWeb) })
        }
        for (k, action) in (Action.known + ["app.ping", "nfc.reads", "host.read"]).enumerated() {
            let bytes = Array(#"{"version":"1.0","correlationId":"e","type":"event","timestamp":1700000000000,"payload":{"action":"\#(action.rawValue)"}}"#.utf8)
            var s = try #require(bytes.withUnsafeBytes { scanner.scan($0, direction: .hostToWeb) }, "\(action)")
            let expected = k < Action.known.count ? k : nil
            #expect(s.knownActionIndex == expected && bytes.withUnsafeBytes { scanner.action(of: s, in: $0) } == action.rawValue, "\(action)")
            bytes.withUnsafeBytes { other.reintern(&s, in: $0) }
            #expect(s.knownActionIndex == expected && bytes.withUnsafeBytes { other.action(of: s, in: $0) } == action.rawValue, "\(action)")
        }
        #expect(Set(Action.known).count == Action.known.count)
    }

    /// Past ``EnvelopeScanner/maxInternedActions`` new actions are not numbered, and their
    /// scans still give their own action (made from the bytes), as do the numbered ones.
    @Test func actionsPastTheTableAreReadFromTheirBytes() throws {
        var scanner = EnvelopeScanner()
        var scans: [([UInt8], ScannedEnvelope)] = []
        for n in 0..<(EnvelopeScanner.maxInternedActions + 20) {
            let bytes = Array(#"{"version":"1.0","correlationId":"e","type":"event","timestamp":1700000000000,"payload":{"action":"app.a\#(n)"}}"#.utf8)
            let s = try #require(bytes.withUnsafeBytes { scanner.scan($0, direction: .hostToWeb) })
            #expect((s.internedActionIndex == nil) == (n >= EnvelopeScanner.maxInternedActions), "action \(n)")
            scans.append((bytes, s))
        }
        for (n, (bytes, s)) in scans.enumerated() {
            #expect(bytes.withUnsafeBytes { scanner.action(of: s, in: $0) } == "app.a\(n)")
        }
    }
}
