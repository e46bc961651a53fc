import BridgeCapture
import BridgePcap
import BridgeProxy
import Testing

struct ProgressTests {
    @Test func lineFormat() {
        let p = CaptureProgress(messages: 1_234_567, bytes: 4_200_000, connections: 1, drops: 0, elapsed: 3_725_000_000_000)
        #expect(p.line == "1,234,567 messages  4.2 MB  1 connection  0 drops  01:02:05")
        #expect(CaptureProgress(messages: 5, bytes: 999, connections: 2, drops: 1, elapsed: 0).line == "5 messages  999 B  2 connections  1 drop  00:00:00")
    }
}
