import BridgeTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 42's connection flood on real processes with the open-files limit at 256
/// (`prlimit --nofile=256:256`): 600 idle WebSocket connections from one peer used to
/// leave a normal page unanswered for 10 s and the host spinning on `accept` at a whole
/// core. The bounds asserted are generous for a loaded 2-core CI machine; the measured
/// figures are printed (docs/SECURITY.md, "Connections").
@Suite(.serialized)
struct AdmissionLoadTests {
    static let descriptors = 256

    /// What a flood got back.
    struct Flood {
        var held: [RawWebSocketClient] = []
        var upgraded = 0, refused503 = 0, other = 0
        var retryAfter: String?
        var seconds = 0.0
    }

    /// Opens `count` WebSocket connections one after the other from 127.0.0.1 and keeps
    /// those that upgraded, silent (never a message).
    static func flood(port: Int, count: Int) -> Flood {
        var f = Flood()
        let start = Date()
        for _ in 0..<count {
            guard let c = try? RawWebSocketClient(port: port, receiveTimeout: 5) else { f.other += 1; continue }
            switch try? c.handshake() {
            case 101?:
                f.upgraded += 1
                f.held.append(c)
            case 503?:
                f.refused503 += 1
                f.retryAfter = c.header("Retry-After")
            default:
                f.other += 1
            }
        }
        f.seconds = Date().timeIntervalSince(start)
        return f
    }

    /// Milliseconds for a normal page to connect, upgrade and receive `host.ready`.
    static func timeToReady(port: Int, source: String? = nil) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        let c = try RawWebSocketClient(port: port, receiveTimeout: 10, source: source)
        let status = try c.handshake()
        guard status == 101 else { throw RawWebSocketClient.Failure.badHandshake(c.responseHead) }
        let ready = try c.readDataOrClose()
        guard ready.text.contains("host.ready") else { throw RawWebSocketClient.Failure.badHandshake(ready.text) }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    }

    /// The totals of the last admission report in `log`: (refused, closed at once, evicted, accept failures).
    static func reportedTotals(_ log: String) -> [Int]? {
        guard let line = log.split(separator: "\n").last(where: { $0.contains("connections turned away") }),
              let range = line.range(of: "(since start: ") else { return nil }
        let numbers = line[range.upperBound...].split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        return numbers.count >= 4 ? Array(numbers.prefix(4)) : nil
    }

    /// Waits up to 5 s for a report whose refused total is at least `refused` and whose
    /// evicted total is at least `evicted` (reports come at most once a second: the
    /// evictions of the same-peer pages can come a line after the flood's refusals, and
    /// a loaded CI run read that earlier line).
    static func awaitReport(_ host: HostProcess, refused: Int, evicted: Int = 0) async throws -> [Int]? {
        for _ in 0..<50 {
            if let t = reportedTotals(host.log), t[0] >= refused, t[2] >= evicted { return t }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        return reportedTotals(host.log)
    }

    /// CPU share of one core the process used over `seconds`.
    static func cpuShare(_ host: HostProcess, over seconds: Double) async throws -> Double {
        let before = host.cpuSeconds
        try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
        return (host.cpuSeconds - before) / seconds
    }

    @Test func sixHundredIdleConnectionsLeaveANormalPageServed() async throws {
        // The flood never answers a ping: with the default idle timeout (120 s) a full run
        // that starves this async test for minutes saw the host close the flood by itself,
        // and the same-peer pages then needed no eviction.
        let host = try HostProcess(command: ["host", "--listen", "127.0.0.1:0", "--log-level", "notice", "--idle-timeout", "3600"],
                                   descriptorLimit: Self.descriptors)
        defer { host.stop() }
        var flood = Self.flood(port: host.port, count: 600)
        // The cap is 208 (256 − 32 − 16) and one address holds at most half of it.
        #expect(flood.upgraded >= 104 && flood.upgraded + flood.refused503 + flood.other == 600)
        #expect(flood.refused503 > 0, "nothing refused: \(flood.upgraded) upgraded, \(flood.other) other")
        #expect(flood.retryAfter == "1")
        // Silent connections become evictable after a second.
        try await Task.sleep(nanoseconds: 1_200_000_000)
        var samePeer: [Double] = [], otherPeer: [Double] = []
        for _ in 0..<5 {
            samePeer.append(try Self.timeToReady(port: host.port))
            otherPeer.append(try Self.timeToReady(port: host.port, source: "127.0.0.2"))
        }
        // Measured well under 300 ms (docs/SECURITY.md); 2 s is the bound a loaded CI machine keeps.
        #expect(samePeer.max()! < 2000 && otherPeer.max()! < 2000, "same peer \(samePeer), another peer \(otherPeer)")
        let cpu = try await Self.cpuShare(host, over: 2)
        #expect(cpu < 0.5, "the host used \(Int(cpu * 100)) % of a core while the flood sat")
        let totals = try await Self.awaitReport(host, refused: flood.refused503, evicted: 1)
        #expect(totals != nil, "no admission report in the log")
        if let totals {
            #expect(totals[0] == flood.refused503, "the log counts \(totals[0]) refused, the flood saw \(flood.refused503) 503s")
            #expect(totals[2] >= 1, "no silent connection was evicted for the same-peer pages")
        }
        let openLines = host.log.components(separatedBy: "connections turned away").count - 1
        print("admission on the host (nofile \(Self.descriptors)): flood of 600 in \(String(format: "%.1f", flood.seconds)) s: "
              + "\(flood.upgraded) upgraded, \(flood.refused503) answered 503, \(flood.other) other; "
              + "normal page connect+upgrade+host.ready: same peer max \(Int(samePeer.max()!)) ms (\(samePeer.map { Int($0) })), "
              + "another peer max \(Int(otherPeer.max()!)) ms; host CPU while the flood sat \(String(format: "%.1f", cpu * 100)) % of a core; "
              + "log totals \(totals ?? []) in \(openLines) report line(s)")
        flood.held.removeAll()
    }

    @Test func maxConnectionsMayLowerTheDerivedCapButNotRaiseIt() throws {
        let prlimit = URL(fileURLWithPath: "/usr/bin/prlimit")
        let limit = "--nofile=\(Self.descriptors):\(Self.descriptors)"
        let above = try runProcess(prlimit, [limit, ProjectPaths.binary.path, "host", "--max-connections", "209"])
        #expect(above.status == 2)
        #expect(above.stderr.contains("--max-connections takes 1 to 208 here"), "\(above.stderr)")
        let zero = try runProcess(prlimit, [limit, ProjectPaths.binary.path, "host", "--max-connections", "0"])
        #expect(zero.status == 2 && zero.stderr.contains("takes 1 to 208"))
        let proxy = try runProcess(prlimit, [limit, ProjectPaths.binary.path, "record", "-o", "/dev/null", "--proxy", "127.0.0.1:0",
                                             "--upstream", "ws://127.0.0.1:9/bridge", "--max-connections", "97"])
        #expect(proxy.status == 2 && proxy.stderr.contains("takes 1 to 96 here"), "\(proxy.stderr)")
    }

    @Test func aLoweredCapIsTheOneInForce() async throws {
        let host = try HostProcess(command: ["host", "--listen", "127.0.0.1:0", "--log-level", "info", "--max-connections", "4"],
                                   descriptorLimit: Self.descriptors)
        defer { host.stop() }
        #expect(host.log.contains("maxConnections=4 maxPerAddress=2"), "\(host.log)")
        var flood = Self.flood(port: host.port, count: 6)
        #expect(flood.upgraded == 2 && flood.refused503 == 4)
        let other = try Self.timeToReady(port: host.port, source: "127.0.0.2")
        #expect(other < 2000)
        flood.held.removeAll()
    }

    @Test func anAcceptWithoutDescriptorsBacksOffInsteadOfSpinning() async throws {
        let host = try HostProcess(command: ["host", "--listen", "127.0.0.1:0", "--log-level", "notice"],
                                   descriptorLimit: Self.descriptors)
        defer { host.stop() }
        // Lower the limit under the cap the host derived at start: accepts now fail with EMFILE.
        let lowered = Process()
        lowered.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        lowered.arguments = ["--pid", "\(host.process.processIdentifier)", "--nofile=48:48"]
        try lowered.run()
        lowered.waitUntilExit()
        try #require(lowered.terminationStatus == 0)
        // TCP connections that never send a request: past ~30 they wait in the backlog.
        var sockets: [RawWebSocketClient] = []
        for _ in 0..<60 { if let c = try? RawWebSocketClient(port: host.port) { sockets.append(c) } }
        try await Task.sleep(nanoseconds: 300_000_000)
        let cpu = try await Self.cpuShare(host, over: 2)
        #expect(cpu < 0.5, "the host used \(Int(cpu * 100)) % of a core with accepts failing")
        let totals = try await Self.awaitReport(host, refused: 0)
        let failures = totals?[3] ?? 0
        // Backoff 100 ms doubling to 1 s: a handful in 2.3 s (a spinning loop made 50,000 a second).
        #expect(failures >= 1 && failures < 50, "accept failures counted: \(failures)")
        sockets.removeAll()
        // Descriptors back: a page is served within the longest pause.
        try await Task.sleep(nanoseconds: 200_000_000)
        let ms = try Self.timeToReady(port: host.port)
        // Within the longest pause (1 s) alone; 6.5 s was seen in a loaded clean-clone run.
        #expect(ms < 15_000)
        print("accept without descriptors (nofile 48 under a cap of 208): host CPU \(String(format: "%.1f", cpu * 100)) % of a core, "
              + "\(failures) failed accepts counted over ~2.5 s; a page afterwards in \(Int(ms)) ms")
    }

    @Test func theRecordingProxyKeepsAPageRelayedUnderTheSameFlood() async throws {
        let upstream = try HostProcess()
        defer { upstream.stop() }
        let archive = TestScratch.rootURL.appendingPathComponent("admission-proxy-\(getpid()).bsz").path
        defer { try? FileManager.default.removeItem(atPath: archive) }
        let proxy = try HostProcess(command: ["record", "-o", archive, "--proxy", "127.0.0.1:0", "--log-level", "notice",
                                              "--upstream", "ws://127.0.0.1:\(upstream.port)/bridge"],
                                    descriptorLimit: Self.descriptors)
        defer { proxy.stop() }
        var flood = Self.flood(port: proxy.port, count: 600)
        // The proxy's cap is 96 ((256 − 32 − 2 × 16) / 2: a page costs its upstream too).
        #expect(flood.upgraded >= 48 && flood.refused503 > 0, "\(flood.upgraded) upgraded, \(flood.refused503) refused")
        try await Task.sleep(nanoseconds: 1_200_000_000)
        var samePeer: [Double] = [], otherPeer: [Double] = []
        for _ in 0..<3 {
            samePeer.append(try normalExchange(port: proxy.port))
            otherPeer.append(try Self.timeToReady(port: proxy.port, source: "127.0.0.2"))
        }
        #expect(samePeer.max()! < 2000 && otherPeer.max()! < 2000, "same peer \(samePeer), another peer \(otherPeer)")
        let cpu = try await Self.cpuShare(proxy, over: 2)
        #expect(cpu < 0.5, "the proxy used \(Int(cpu * 100)) % of a core while the flood sat")
        let totals = try await Self.awaitReport(proxy, refused: flood.refused503)
        #expect(totals.map { $0[0] == flood.refused503 } == true, "log totals \(totals ?? []), 503s seen \(flood.refused503)")
        print("admission on the proxy (nofile \(Self.descriptors)): flood of 600: \(flood.upgraded) upgraded, "
              + "\(flood.refused503) answered 503, \(flood.other) other; a normal page relayed (capability.query answered): "
              + "same peer max \(Int(samePeer.max()!)) ms, another peer (host.ready) max \(Int(otherPeer.max()!)) ms; "
              + "proxy CPU while the flood sat \(String(format: "%.1f", cpu * 100)) % of a core; log totals \(totals ?? [])")
        flood.held.removeAll()
    }
}
