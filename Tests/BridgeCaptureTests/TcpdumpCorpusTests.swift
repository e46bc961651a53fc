import BridgeCapture
import BridgePcap
import BridgeProxy
import BridgeTestSupport
import Foundation
import Testing

/// Every capture of tcpdump's own test suite (many deliberately malformed) is read
/// through the offline driver without a crash or a hang: the answer is an empty result,
/// or a clear error naming the file.
struct TcpdumpCorpusTests {
    static let files: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: TestData.tcpdumpTests.path)) ?? []
        return names.filter { $0.hasSuffix(".pcap") || $0.hasSuffix(".pcapng") }.sorted()
    }()

    @Test func everyFileIsReadWithoutCrashOrHang() throws {
        _ = try ProjectPaths.fixture("pcaps-tcpdump/tests")
        try #require(Self.files.count >= 800, "tcpdump test captures missing under \(TestData.tcpdumpTests.path)")
        var opened = 0, failedToOpen = 0, damaged = 0, packets = 0, messages = 0, malformed = 0
        var messageFiles: [String] = []
        var unsupported = 0, errorEvents = 0
        for name in Self.files {
            let path = TestData.tcpdumpTests.appendingPathComponent(name).path
            var messageCount = 0
            do {
                let summary = try CaptureRunner(source: .file(path)).run { output in
                    switch output {
                    case .message: messageCount += 1
                    case .error: errorEvents += 1
                    default: break
                    }
                }
                opened += 1
                packets += summary.statistics.packets
                malformed += summary.statistics.malformed
                if messageCount > 0 {
                    messages += messageCount
                    messageFiles.append(name)
                }
            } catch let e as CaptureError {
                #expect(e.message.contains(name), "error does not name the file: \(e.message)")
                switch e.kind {
                case .openFile: failedToOpen += 1
                case .unsupportedLinkType: unsupported += 1
                default: damaged += 1
                }
            }
        }
        print("tcpdump corpus: \(Self.files.count) files, \(opened) read, \(unsupported) of unsupported link types, \(errorEvents) error events, \(failedToOpen) not openable, \(damaged) damaged part-way, \(packets) packets, \(malformed) malformed, \(messages) messages in \(messageFiles)")
        #expect(opened > 100)
        #expect(messages == 0, "WebSocket messages found in \(messageFiles)")
    }
}
