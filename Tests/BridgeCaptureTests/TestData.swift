import BridgeCapture
import BridgePcap
import BridgeProxy
import BridgeTestSupport
import Foundation

/// Paths of the fixture captures (`Tests/Fixtures`) and a helper that decodes a whole file.
enum TestData {
    /// `Tests/Fixtures/pcaps-websocket` (need not exist: use ``websocketCapture(_:)``).
    static let websocket = ProjectPaths.fixtures.appendingPathComponent("pcaps-websocket")
    /// `Tests/Fixtures/pcaps-tcpdump/tests`.
    static let tcpdumpTests = ProjectPaths.fixtures.appendingPathComponent("pcaps-tcpdump/tests")

    /// The path of a real WebSocket capture; throws naming the path when it is absent.
    static func websocketCapture(_ name: String) throws -> String {
        try ProjectPaths.fixture("pcaps-websocket/" + name).path
    }

    /// Decodes every packet of `path` and finishes; returns outputs and the decoder.
    static func decode(_ path: String, limits: CaptureLimits = .default) throws -> (outputs: [CaptureOutput], decoder: CaptureDecoder) {
        let reader = try PcapFileReader(path: path)
        let decoder = CaptureDecoder(limits: limits)
        var out: [CaptureOutput] = []
        var last: Int64 = 0
        while try reader.next({ p -> Void in
            last = p.time
            decoder.receive(time: p.time, linkType: p.linkType, packet: p.bytes, into: &out)
        }) != nil {}
        decoder.finish(time: last, into: &out)
        return (out, decoder)
    }
}

/// A decoded or sent message, for comparisons.
struct TestMessage: Hashable {
    var direction: String
    var connection: String = ""
    var bytes: [UInt8]
    /// The bytes as text (readable in failure messages).
    var text: String { String(decoding: bytes, as: UTF8.self) }
}

extension [CaptureOutput] {
    /// The messages, in order.
    var messages: [TestMessage] {
        compactMap {
            if case .message(_, let d, let c, let b) = $0 { return TestMessage(direction: d.rawValue, connection: c, bytes: b) }
            return nil
        }
    }
}

extension CaptureOutput {
    var kinds: String { [self].kinds[0] }
}
