import BridgeCapture
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
        try #require(Self.files.count >= 800, "tcpdump test captures not found under \(TestData.tcpdumpTests.path)")
        var opened = 0, failedToOpen = 0, damaged = 0, packets = 0, messages = 0, malformed = 0
        var messageFiles: [String] = []
        for name in Self.files {
            let path = TestData.tcpdumpTests.appendingPathComponent(name).path
            do {
                let (out, decoder) = try TestData.decode(path)
                opened += 1
                packets += decoder.statistics.packets
                malformed += decoder.statistics.malformed
                if !out.messages.isEmpty {
                    messages += out.messages.count
                    messageFiles.append(name)
                }
            } catch let e as CaptureError {
                #expect(e.message.contains(name), "error does not name the file: \(e.message)")
                if e.kind == .openFile { failedToOpen += 1 } else { damaged += 1 }
            }
        }
        print("tcpdump corpus: \(Self.files.count) files, \(opened) read, \(failedToOpen) not openable, \(damaged) damaged part-way, \(packets) packets, \(malformed) malformed, \(messages) messages in \(messageFiles)")
        #expect(opened > 700)
    }
}
