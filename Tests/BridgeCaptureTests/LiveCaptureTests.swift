import BridgeTestSupport
import BridgeCapture
@_spi(Testing) import BridgePcap
import BridgeProxy
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Live capture on loopback (needs root) and a pcap written by tcpdump of the same
/// traffic: both give exactly the messages the exchange sent.
@Suite(.serialized)
struct LiveCaptureTests {
    static let isRoot = getuid() == 0
    static let tcpdump = ["/usr/bin/tcpdump", "/usr/sbin/tcpdump"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs a live recording on a thread until `stop` is raised; `started` is signalled
    /// once the capture is active.
    final class Recording: @unchecked Sendable {
        var outputs: [CaptureOutput] = []
        var summary: CaptureSummary?
        var error: Error?
        let stop = CaptureStopSignal()
        let started = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)

        init(_ options: LiveCaptureOptions, run: CaptureRunOptions = .init()) {
            let thread = Thread { [self] in
                var signalled = false
                do {
                    summary = try CaptureRunner(source: .live(options), options: run).run(
                        shouldStop: stop.isRaised,
                        progress: { _ in if !signalled { signalled = true; self.started.signal() } },
                        sink: { self.outputs.append($0) })
                } catch {
                    self.error = error
                }
                if !signalled { started.signal() }
                done.signal()
            }
            thread.start()
        }
    }

    @Test(.enabled(if: isRoot, "live capture needs root (or CAP_NET_RAW and CAP_NET_ADMIN); skipped"))
    func liveCaptureAndATcpdumpFileHoldExactlyTheExchangedMessages() throws {
        let listener = try LoopbackExchange.listen()
        defer { close(listener.fd) }
        let filter = "tcp port \(listener.port)"
        let recording = Recording(LiveCaptureOptions(interface: "lo", filter: filter))
        #expect(recording.started.wait(timeout: .now() + 10) == .success)

        // tcpdump on the same traffic, when installed.
        var dump: Process?
        let pcap = TestScratch.rootURL.appendingPathComponent("bridgescope-live-\(getpid()).pcap").path
        defer { try? FileManager.default.removeItem(atPath: pcap) }
        if let tcpdump = Self.tcpdump {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: tcpdump)
            p.arguments = ["-i", "lo", "--immediate-mode", "-B", "32768", "-U", "-n", "-w", pcap, filter]
            let err = Pipe()
            p.standardError = err
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            // Wait for "listening on" so no packet is missed.
            let ready = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                var seen = Data()
                while case let chunk = err.fileHandleForReading.availableData, !chunk.isEmpty {
                    seen.append(chunk)
                    if String(decoding: seen, as: UTF8.self).contains("listening on") { ready.signal(); break }
                }
            }
            #expect(ready.wait(timeout: .now() + 10) == .success, "tcpdump did not start")
            dump = p
        }

        let sent = try LoopbackExchange.run(listener: listener, count: 300)
        // Let the last packets reach both captures: wait (up to 10 s on a loaded machine)
        // until tcpdump's file holds every message, then a little longer.
        // (or until the count stops growing: tcpdump may have dropped some).
        if dump != nil {
            var previous = -1, still = 0
            for _ in 0..<50 {
                var n = 0
                _ = try? CaptureRunner(source: .file(pcap)).run { if case .message = $0 { n += 1 } }
                if n >= sent.count { break }
                still = n == previous ? still + 1 : 0
                if still >= 3 { break }
                previous = n
                usleep(200_000)
            }
        }
        usleep(300_000)
        recording.stop.raise()
        #expect(recording.done.wait(timeout: .now() + 10) == .success, "the recording did not stop")
        if let error = recording.error { Issue.record("live capture failed: \(error)") }

        let live = recording.outputs.messages
        #expect(live.count == sent.count)
        #expect(live.map(\.text) == sent.map(\.text))
        #expect(live.map(\.direction) == sent.map(\.direction))
        #expect(recording.summary?.statistics.drops == 0)
        #expect(recording.summary?.stopReason == "stopped")
        #expect(live.allSatisfy { $0.connection.hasSuffix("-127.0.0.1:\(listener.port)") })

        if let dump {
            // Foundation starts children here with signals blocked, so SIGINT and SIGTERM
            // never reach tcpdump: end it with SIGKILL (by the pid this test started).
            // With -U every packet was written as it came.
            kill(dump.processIdentifier, SIGKILL)
            dump.waitUntilExit()
            var fromFile: [CaptureOutput] = []
            let summary = try CaptureRunner(source: .file(pcap)).run { fromFile.append($0) }
            #expect(summary.stopReason == "end of file")
            if fromFile.gaps.isEmpty {
                #expect(fromFile.messages.map(\.text) == sent.map(\.text))
                #expect(fromFile.messages.map(\.connection) == live.map(\.connection))
            } else {
                // tcpdump itself dropped packets (it runs starved on a loaded machine):
                // the loss must show as gaps, and nothing wrong may be decoded.
                let sentTexts = Set(sent.map(\.text))
                #expect(fromFile.messages.allSatisfy { sentTexts.contains($0.text) })
                print("note: tcpdump dropped packets: \(summary.statistics.packets) packets, \(fromFile.messages.count) of \(sent.count) messages, \(fromFile.gaps.count) gaps")
            }
        }
    }

    @Test(.enabled(if: isRoot, "live capture needs root; skipped"))
    func anIdleInterfaceNeverBlocksTheDurationStop() throws {
        let recording = Recording(LiveCaptureOptions(interface: "lo", filter: "tcp port 9"), run: CaptureRunOptions(duration: 0.3))
        #expect(recording.done.wait(timeout: .now() + 10) == .success, "an idle capture did not stop")
        #expect(recording.summary?.stopReason == "duration reached")
        #expect(recording.outputs.isEmpty)
    }

    @Test func liveErrorsSayWhatToDo() {
        #expect {
            _ = try PcapLiveCapture(options: LiveCaptureOptions(interface: "no-such-if0"))
        } throws: { error in
            guard let e = error as? CaptureError else { return false }
            return e.message.contains("no-such-if0") && (e.kind == .noSuchInterface || e.kind == .permission)
        }
        if Self.isRoot {
            #expect {
                _ = try PcapLiveCapture(options: LiveCaptureOptions(interface: "lo", filter: "tcp port banana"))
            } throws: { error in
                (error as? CaptureError)?.kind == .filter && "\(error)".contains("tcp port banana")
            }
        }
        let permission = PcapLiveCapture.activationErrorForTesting(-8, "eth0")
        #expect(permission.kind == .permission)
        #expect(permission.message.contains("run as root") && permission.message.contains("--proxy") && permission.message.contains("eth0"))
    }
}
