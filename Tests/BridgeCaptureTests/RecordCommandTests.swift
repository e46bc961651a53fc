import BridgeArchive
import BridgeCapture
import BridgePcap
import BridgeProxy
import BridgeTransport
import BridgeTestSupport
import Foundation
import Testing

/// `bridgescope record` as a process: sources, redaction, exit codes, clean stops.
@Suite(.serialized)
struct RecordCommandTests {
    static var tool: String? {
        FileManager.default.isExecutableFile(atPath: ProjectPaths.binary.path) ? ProjectPaths.binary.path : nil
    }

    /// Starts `bridgescope args...`; returns the process and its standard error pipe.
    static func launch(_ args: [String]) throws -> (Process, Pipe) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try #require(tool, "run `swift build` first"))
        p.arguments = args
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        return (p, err)
    }

    /// Reads standard error until `marker` appears (up to 10 s); returns what was read.
    static func read(_ pipe: Pipe, until marker: String) -> String {
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var data = Data()
        }
        let seen = Seen()
        let ready = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            while case let chunk = pipe.fileHandleForReading.availableData, !chunk.isEmpty {
                let text = seen.lock.withLock { () -> String in
                    seen.data.append(chunk)
                    return String(decoding: seen.data, as: UTF8.self)
                }
                if text.contains(marker) { break }
            }
            ready.signal()
        }
        _ = ready.wait(timeout: .now() + 10)
        return seen.lock.withLock { String(decoding: seen.data, as: UTF8.self) }
    }

    @Test func readingACaptureWithRedactionExitsZero() throws {
        try #require(Self.tool != nil, "run `swift build` first")
        let out = temporaryPath("cli-read.bsz")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try runBridgescope(["record", "-o", out, "--read", TestData.websocketCapture("chrome_ws.pcap"),
                                         "--redact", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let reader = try ArchiveReader(path: out)
        #expect(reader.header.source.hasPrefix("pcap-file:"))
        #expect(reader.readAllRecords().count == 2)
    }

    @Test(arguments: [
        (["--read", "x.pcap", "--port", "80"], "--port, --filter and --immediate need --interface"),
        (["--proxy", "127.0.0.1:0"], "--proxy needs --upstream"),
        (["--proxy", "nowhere", "--upstream", "ws://127.0.0.1:1/bridge"], "--proxy takes HOST:PORT"),
        (["--proxy", "127.0.0.1:0", "--upstream", "wss://x/bridge"], "--upstream takes ws://"),
        (["--tap", "-", "--count", "3"], "--count needs --read, --interface, --proxy, --cdp, --webkit or --launch"),
        (["--read", "x.pcap", "--duration", "3"], "--duration needs --interface, --proxy, --cdp, --webkit or --launch"),
        (["--cdp", "ws://127.0.0.1:9222"], "--cdp takes the DevTools HTTP endpoint http://HOST:PORT"),
        (["--cdp", "http://127.0.0.1:9222", "--launch", "http://x/"], "--cdp and --launch cannot be combined"),
        (["--launch", "http://x/", "--target", "x"], "--target needs --cdp"),
        (["--launch", "http://x/", "--page-targets"], "--page-targets needs --cdp"),
        (["--read", "x.pcap", "--cdp", "http://127.0.0.1:9222"], "give only one source"),
        (["--read", "x.pcap", "--tap", "-"], "give only one source"),
        ([], "give a source"),
    ])
    func usageErrorsExitTwo(args: [String], message: String) throws {
        try #require(Self.tool != nil, "run `swift build` first")
        let result = try runBridgescope(["record", "-o", temporaryPath("never.bsz")] + args)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func aMissingCaptureFileIsAnErrorBeforeAnyArchive() throws {
        try #require(Self.tool != nil, "run `swift build` first")
        let out = temporaryPath("cli-missing.bsz")
        let result = try runBridgescope(["record", "-o", out, "--read", "/nonexistent/x.pcap"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("/nonexistent/x.pcap"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test(.enabled(if: getuid() == 0, "live capture needs root; skipped"))
    func sigtermFinishesALiveRecording() throws {
        let out = temporaryPath("cli-live.bsz")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let (p, _) = try Self.launch(["record", "-o", out, "--interface", "lo", "--port", "9", "--quiet"])
        usleep(500_000)
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let reader = try ArchiveReader(path: out)
        #expect(reader.header.source == "pcap:lo" && reader.header.filter == "tcp port 9")
        _ = reader.readAllRecords()
        #expect(reader.trailer != nil && reader.findings.isEmpty)
    }

    @Test func theProxyProcessRecordsAndSigtermFinishesTheArchive() async throws {
        let host = try await ReferenceHost()
        let out = temporaryPath("cli-proxy.bsz")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let (p, err) = try Self.launch(["record", "-o", out, "--proxy", "127.0.0.1:0", "--upstream", host.url.description, "--quiet"])
        let banner = await offPool { Self.read(err, until: "/bridge, upstream") }
        let port = banner.split(separator: "ws://127.0.0.1:").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) }
        let url = try #require(port.flatMap { WebSocketURL("ws://127.0.0.1:\($0)/bridge") }, "no listening line: \(banner)")
        let seen = try await ScriptedWebSide.run(url, queries: 20)
        try await Task.sleep(nanoseconds: 200_000_000)
        kill(p.processIdentifier, SIGTERM)
        let box = UncheckedBox(p)
        await offPool { box.value.waitUntilExit() }
        await host.stop()
        #expect(p.terminationStatus == 0)
        let archive = try RecordedExchange(archive: out)
        #expect(archive == seen, "archive: \(archive); web side: \(seen)")
        #expect(archive.findings.isEmpty && archive.trailer != nil)
        #expect(archive.events(.open).count == 1 && archive.events(.close).count == 1)
    }
}
