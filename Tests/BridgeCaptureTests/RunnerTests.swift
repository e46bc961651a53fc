import BridgeTestSupport
import BridgeCapture
import BridgePcap
import BridgeProxy
import BridgeWebSocket
import Foundation
import Testing

/// The offline driver through `CaptureRunner`: stop conditions, redaction, errors.
struct RunnerTests {
    /// Writes packets as a classic pcap file (microsecond stamps) and returns its path.
    static func pcapFile(_ packets: [[UInt8]], linkType: UInt32 = 1, name: String = #function) throws -> String {
        func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
        var bytes = le32(0xA1B2_C3D4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(262_144) + le32(linkType)
        for (i, p) in packets.enumerated() {
            bytes += le32(1_700_000_000 + UInt32(i)) + le32(0) + le32(UInt32(p.count)) + le32(UInt32(p.count)) + p
        }
        let path = TestScratch.rootURL
            .appendingPathComponent("bridgescope-\(getpid())-\(name.filter(\.isLetter)).pcap").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func countStopsAfterThatManyMessages() throws {
        var messages = 0
        let summary = try CaptureRunner(source: .file(TestData.websocketCapture("bulk_deflate.pcap")),
                                        options: CaptureRunOptions(maxMessages: 10)).run { if case .message = $0 { messages += 1 } }
        #expect(messages == 10)
        #expect(summary.stopReason == "count reached")
    }

    @Test func redactionAppliesToRecordedMessages() throws {
        var s = try WebSocketSession(deflate: DeflateAgreement())
        s.handshake()
        let response = #"{"version":"1.0","correlationId":"c","type":"response","timestamp":1700000000000,"payload":{"action":"camera.selfie.capture","status":"success","data":{"previewImageData":"/9j/4AAQ","width":1,"height":1,"mimeType":"image/jpeg"}}}"#
        s.send(fromClient: false, try s.frames(fromClient: false, Array(response.utf8)))
        let path = try Self.pcapFile(s.packets)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var recorded: [CaptureOutput] = []
        let summary = try CaptureRunner(source: .file(path), options: CaptureRunOptions(redact: true)).run { recorded.append($0) }
        #expect(summary.redactedFields == 1)
        let text = recorded.messages.first?.text ?? ""
        #expect(text.contains(#""previewImageData":{"redacted":true,"sha256":"\#(Redactor.sha256Hex(Array("/9j/4AAQ".utf8)))","bytes":8}"#))
        #expect(!text.contains("/9j/4AAQ"))
    }

    @Test func openingErrorsNameTheFileAndSayWhy() throws {
        #expect { try CaptureRunner(source: .file("/nonexistent/x.pcap")) } throws: { error in
            guard let e = error as? CaptureError else { return false }
            return e.kind == .openFile && e.message.contains("/nonexistent/x.pcap")
        }
        let usb = try Self.pcapFile([[1, 2, 3]], linkType: 189)
        defer { try? FileManager.default.removeItem(atPath: usb) }
        #expect { try CaptureRunner(source: .file(usb)) } throws: { error in
            guard let e = error as? CaptureError else { return false }
            return e.kind == .unsupportedLinkType && e.message.contains(usb) && e.message.contains("189")
        }
    }

    @Test func aFileCutAnywhereIsReadOrRefusedClearly() throws {
        let s = try CaptureDecoderTests.session(deflate: DeflateAgreement(), count: 4)
        let wholePath = try Self.pcapFile(s.packets)
        let whole = try Data(contentsOf: URL(fileURLWithPath: wholePath))
        try? FileManager.default.removeItem(atPath: wholePath)
        let path = try Self.pcapFile([], name: "cut")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var outcomes = [0, 0]
        for cut in stride(from: 0, to: whole.count, by: 37) {
            try whole.prefix(cut).write(to: URL(fileURLWithPath: path))
            do {
                var messages = 0
                _ = try CaptureRunner(source: .file(path)).run { if case .message = $0 { messages += 1 } }
                #expect(messages <= s.sent.count)
                outcomes[0] += 1
            } catch let e as CaptureError {
                #expect(e.message.contains(path))
                outcomes[1] += 1
            }
        }
        #expect(outcomes[0] > 0 && outcomes[1] > 0)
    }
}
