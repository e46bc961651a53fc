import BridgeCapture
import BridgePcap
import BridgeProxy
import Foundation
import Testing

/// The real Chromium and Python captures decode to exactly the counts in their README.
struct RealCaptureTests {
    @Test func chromiumCaptureHasTwoMessages() throws {
        let (out, decoder) = try TestData.decode(TestData.websocketCapture("chrome_ws.pcap"))
        let messages = out.messages
        #expect(messages.count == 2)
        try #require(messages.count == 2)
        #expect(messages[0].direction == "w2h")
        #expect(messages[1].direction == "h2w")
        #expect(String(decoding: messages[0].bytes, as: UTF8.self).hasPrefix("{\"version\":\"1.0\""))
        #expect(decoder.statistics.connections == 1)
        for o in out { print(o) }
    }

    @Test func bulkDeflateCaptureHasFiftyThousandMessages() throws {
        let (out, decoder) = try TestData.decode(TestData.websocketCapture("bulk_deflate.pcap"))
        let messages = out.messages
        #expect(messages.count == 50_000)
        #expect(messages.filter { $0.direction == "w2h" }.count == 25_000)
        #expect(decoder.statistics.gaps == 0)
        for o in out {
            if case .message = o { continue }
            print(o)
        }
    }
}
