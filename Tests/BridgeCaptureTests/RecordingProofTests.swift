import BridgeArchive
import BridgeCapture
import BridgePcap
import BridgeProxy
import BridgeTransport
import Foundation
import Testing

/// The proof of `bridgescope record`: one real exchange between a scripted web side and
/// the reference host, recorded three ways at once (the recording proxy in the middle,
/// libpcap on loopback, and a tcpdump file read back with `--read`), gives archives
/// holding exactly the envelopes the web side sent and received.
@Suite(.serialized)
struct RecordingProofTests {
    static let isRoot = getuid() == 0
    static let queries = 200

    @Test func theProxyRecordsExactlyWhatTheWebSideExchanged() async throws {
        let host = try await ReferenceHost()
        let proxy = try await ProxyRecordingSource.start(options: ProxyOptions(listenPort: 0, upstream: host.url))
        let path = temporaryPath("proxy.bsz")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recording = BackgroundRecording(proxy, path: path)
        let seen = try await ScriptedWebSide.run(WebSocketURL("ws://127.0.0.1:\(proxy.port)/bridge")!, queries: Self.queries)
        #expect(await recording.finish(), "the proxy recording did not stop")
        await host.stop()
        if let error = recording.error { Issue.record("recording failed: \(error)") }

        let archive = try RecordedExchange(archive: path)
        #expect(archive.findings.isEmpty)
        #expect(seen.webToHost.count == Self.queries + 1)
        #expect(archive.webToHost == seen.webToHost, "proxy: \(archive); web side: \(seen)")
        // The client stops reading after its last response; anything the host sent later
        // (none in this script) would be extra in the archive.
        #expect(archive.hostToWeb.prefix(seen.hostToWeb.count).elementsEqual(seen.hostToWeb))
        #expect(archive.hostToWeb.count == seen.hostToWeb.count)
        #expect(archive.events(.open).count == 1)
        #expect(archive.events(.close).count == 1)
        #expect(archive.events(.open).first?.reason?.contains(host.url.description) == true)
        #expect(archive.trailer?.records == seen.webToHost.count + seen.hostToWeb.count)
        #expect(archive.trailer?.errors == 0 && archive.trailer?.drops == 0)
    }

    @Test(.enabled(if: isRoot, "live capture needs root (or CAP_NET_RAW and CAP_NET_ADMIN); skipped"))
    func liveCaptureTheProxyAndATcpdumpFileHoldTheSameEnvelopes() async throws {
        let host = try await ReferenceHost()
        let filter = "tcp port \(host.url.port)"
        let livePath = temporaryPath("live.bsz"), proxyPath = temporaryPath("proxied.bsz")
        let pcapPath = temporaryPath("tcpdump.pcap"), filePath = temporaryPath("file.bsz")
        defer { for p in [livePath, proxyPath, pcapPath, filePath] { try? FileManager.default.removeItem(atPath: p) } }

        // libpcap on the proxy's upstream leg, tcpdump on the same traffic, and the proxy.
        let live = BackgroundRecording(try PcapRecordingSource(source: .live(LiveCaptureOptions(interface: "lo", filter: filter))),
                                       path: livePath)
        let dump = try await offPool { Result { try Tcpdump.start(filter: filter, writingTo: pcapPath).map(UncheckedBox.init) } }.get()
        let proxy = try await ProxyRecordingSource.start(options: ProxyOptions(listenPort: 0, upstream: host.url))
        let proxied = BackgroundRecording(proxy, path: proxyPath)

        let seen = try await ScriptedWebSide.run(WebSocketURL("ws://127.0.0.1:\(proxy.port)/bridge")!, queries: Self.queries)
        #expect(await proxied.finish())
        let total = seen.webToHost.count + seen.hostToWeb.count
        if let dump { await offPool { Tcpdump.stop(dump.value, file: pcapPath, messages: total) } }
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(await live.finish(), "the live recording did not stop")
        await host.stop()
        for r in [live, proxied] { if let error = r.error { Issue.record("recording \(r.path) failed: \(error)") } }

        let fromProxy = try RecordedExchange(archive: proxyPath)
        let fromLive = try RecordedExchange(archive: livePath)
        #expect(fromProxy == seen, "proxy: \(fromProxy); web side: \(seen)")
        #expect(fromLive == seen, "live: \(fromLive); web side: \(seen); proxy: \(fromProxy)")
        #expect(fromLive.trailer?.drops == 0 && fromLive.trailer?.gaps == 0 && fromLive.trailer?.errors == 0)
        #expect(fromLive.events(.open).count == 1)

        if dump != nil {
            let file = BackgroundRecording(try PcapRecordingSource(source: .file(pcapPath)), path: filePath)
            #expect(await file.wait())
            let fromFile = try RecordedExchange(archive: filePath)
            if fromFile.trailer?.gaps == 0 {
                #expect(fromFile == fromLive, "file: \(fromFile); live: \(fromLive); first w2h difference at \(firstDifference(fromFile.webToHost, fromLive.webToHost)), h2w at \(firstDifference(fromFile.hostToWeb, fromLive.hostToWeb))")
            } else {
                // tcpdump itself dropped packets (starved on a loaded 2-core machine): the
                // loss shows as gaps and nothing wrong is decoded.
                #expect(Set(fromFile.webToHost).isSubset(of: Set(seen.webToHost)))
                #expect(Set(fromFile.hostToWeb).isSubset(of: Set(seen.hostToWeb)))
                print("note: tcpdump dropped packets: \(fromFile.webToHost.count + fromFile.hostToWeb.count) messages, \(fromFile.trailer?.gaps ?? 0) gaps")
            }
        }
    }
}

/// The index of the first element where `a` and `b` differ (nil when equal).
func firstDifference(_ a: [[UInt8]], _ b: [[UInt8]]) -> Int? {
    if a == b { return nil }
    return zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
}
