import BridgeTestSupport
import Foundation
import Testing

/// `record --cdp` (through `record --launch`, as `tools/run-journey --record` uses it)
/// and `record --proxy` record the same journey at once: the two archives must hold the
/// same messages per direction, byte for byte, and analyze must say the same.
@Suite(.serialized, .enabled(if: chromiumEnabled, "chromium is not installed: run tools/setup.sh --with-browser"))
struct CDPRecordingTests {
    let bin = ProjectPaths.root.appendingPathComponent(".build/debug/bridgescope")

    /// The message bytes of one direction, in order (`msg`, `text` or `b64` member onward).
    func messages(_ archive: String, _ dir: String) throws -> [String] {
        let r = try runProcess(bin, ["cat", archive, "--dir", dir, "--format", "jsonl"])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").filter { $0.contains("\"seq\"") && $0.contains("\"dir\"") }.map { line in
            for key in [",\"msg\":", ",\"text\":", ",\"b64\":"] {
                if let range = line.range(of: key) { return String(line[range.lowerBound...]) }
            }
            return String(line)
        }
    }

    /// Analyze's findings and counts, without what differs by nature between sources (times, connection ids, file names).
    func findings(_ archive: String) throws -> [String] {
        let r = try runProcess(bin, ["analyze", archive, "--format", "json", "--fail-on", "never"])
        #expect(r.status == 0, "\(r.stderr)")
        // Every finding, plus the session summary's counts (the first of each: the DevTools
        // archive also has a connection for the browser's first about:blank document).
        let lines = r.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let findings = lines.filter { l in ["\"rule\"", "\"slug\"", "\"severity\""].contains { l.hasPrefix($0) } }.sorted()
        let summary = ["\"verdict\"", "\"messages\"", "\"requests\"", "\"unanswered\"", "\"errors\"", "\"warnings\""]
            .compactMap { key in lines.first { $0.hasPrefix(key) } }
        return summary + findings
    }

    @Test(arguments: ["passport", "document-dual", "degradation"])
    func devToolsAndProxyRecordTheSameJourney(journey: String) throws {
        let dir = TestScratch.rootURL.appendingPathComponent("cdp-\(journey)-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // `record --launch` gives Chromium a TMPDIR in its profile: the folder Chromium
        // leaves there when stopped (`org.chromium.Chromium.*`) goes with the profile.
        let tmp = dir.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        for env in ["ios", "android"] {
            let cdp = dir.appendingPathComponent("\(env)-cdp.bsz").path
            let proxy = dir.appendingPathComponent("\(env)-proxy.bsz").path
            let r = try runProcess(ProjectPaths.root.appendingPathComponent("tools/run-journey"),
                                   [journey, "--env", env, "--record", cdp, "--proxy-record", proxy, "--quiet", "--timeout", "60"],
                                   environment: ["TMPDIR": tmp.path])
            #expect(r.status == 0, "\(journey) \(env): \(r.stdout)\n\(r.stderr)")
            let left = try FileManager.default.contentsOfDirectory(atPath: tmp.path).filter { $0.hasPrefix("org.chromium") }
            #expect(left.isEmpty, "\(journey) \(env): Chromium left \(left) in TMPDIR")
            let header = try runProcess(bin, ["cat", cdp, "--format", "jsonl"]).stdout
            #expect(header.hasPrefix("{\"bridgescope\":\"session\",\"formatVersion\":1,\"source\":\"cdp:http://127.0.0.1:"))
            #expect(header.contains("\"event\":\"open\""), "open events per frame")
            for direction in ["w2h", "h2w"] {
                let a = try messages(cdp, direction), b = try messages(proxy, direction)
                #expect(!a.isEmpty, "\(journey) \(env) \(direction): nothing recorded over DevTools")
                #expect(a == b, "\(journey) \(env) \(direction): DevTools \(a.count) vs proxy \(b.count) messages differ")
            }
            #expect(try findings(cdp) == findings(proxy), "\(journey) \(env): analyze differs")
        }
    }

    /// Records of an archive: (conn, dir, message bytes from the `msg`/`text`/`b64` member on).
    func records(_ archive: String) throws -> [(conn: String, dir: String, body: String)] {
        let r = try runProcess(bin, ["cat", archive, "--format", "jsonl"])
        #expect(r.status == 0, "\(archive): \(r.stderr)")
        return r.stdout.split(separator: "\n").compactMap { line -> (String, String, String)? in
            guard line.hasPrefix("{\"seq\""), line.range(of: #"^\{"seq":[0-9]+,"t":[0-9]+,"event":"#, options: .regularExpression) == nil,
                  let c = line.range(of: #""conn":"[^"]*""#, options: .regularExpression),
                  let d = line.range(of: #""dir":"[^"]*""#, options: .regularExpression) else { return nil }
            let body = [",\"msg\":", ",\"text\":", ",\"b64\":"].compactMap { line.range(of: $0) }.first.map { String(line[$0.lowerBound...]) } ?? ""
            return (String(line[c].dropFirst(8).dropLast()), String(line[d].dropFirst(7).dropLast()), body)
        }
    }

    /// Runs tools/run-journey with the arguments; returns the transcript of the host.
    func run(_ args: [String], in dir: URL) throws -> String {
        let transcript = dir.appendingPathComponent("transcript-\(UUID().uuidString).jsonl").path
        let r = try runProcess(ProjectPaths.root.appendingPathComponent("tools/run-journey"),
                               args + ["--quiet", "--timeout", "60", "--transcript", transcript])
        #expect(r.status == 0, "\(args): \(r.stdout)\n\(r.stderr)")
        return (try? String(contentsOfFile: transcript, encoding: .utf8)) ?? ""
    }

    /// The shapes page's own log, from journey.complete in the host's transcript.
    func pageLog(_ transcript: String) -> String? {
        guard let line = transcript.split(separator: "\n").first(where: { $0.contains("\"action\":\"journey.complete\"") }),
              let range = line.range(of: #""pageLog":\[[^\]]*\]"#, options: .regularExpression) else { return nil }
        return String(line[range])
    }

    /// Equal sequences; a failure shows sizes and the first difference, not megabytes of images.
    func same(_ a: [String], _ b: [String], _ what: String = "") -> Bool {
        if a == b { return true }
        let i = a.indices.first { $0 >= b.count || a[$0] != b[$0] } ?? a.count
        let left = a.indices.contains(i) ? String(a[i].prefix(160)) : "-"
        let right = b.indices.contains(i) ? String(b[i].prefix(160)) : "-"
        Issue.record(Comment(rawValue: "\(what): \(a.count) vs \(b.count) messages, first difference at \(i): \(left) | \(right)"))
        return false
    }

    func temporaryFolder(_ name: String) throws -> URL {
        let dir = TestScratch.rootURL.appendingPathComponent("cdp-\(name)-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The page wraps postMessage and receive itself and inspects its bridge: its own log
    /// and outcome are the same with and without recording, and every crossing is
    /// recorded once (as the proxy saw it).
    @Test(arguments: ["ios", "android"])
    func thePageCannotTellItIsRecorded(env: String) throws {
        let dir = try temporaryFolder("shapes-\(env)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let plain = try run(["shapes", "--env", env, "--page-args", "wrap=1"], in: dir)
        let cdp = dir.appendingPathComponent("cdp.bsz").path, proxy = dir.appendingPathComponent("proxy.bsz").path
        let recorded = try run(["shapes", "--env", env, "--page-args", "wrap=1", "--record", cdp, "--proxy-record", proxy], in: dir)
        let a = pageLog(plain), b = pageLog(recorded)
        #expect(a != nil && a == b, "the page's own log differs with recording:\n\(a ?? "-")\n\(b ?? "-")")
        #expect(a?.contains("page wrapper post capability.query this-ok=true") == true)
        let c = try records(cdp), p = try records(proxy)
        // The page itself calls receive("not an envelope") once: a host → web call the
        // tap sees and the proxy cannot.
        #expect(c.filter { $0.body == ",\"text\":\"not an envelope\"}" }.count == 1)
        for dir in ["w2h", "h2w"] {
            #expect(same(c.filter { $0.dir == dir && !$0.body.contains("not an envelope") }.map(\.body),
                         p.filter { $0.dir == dir }.map(\.body), "\(env) \(dir)"))
        }
    }

    /// `record --cdp` attaching to a page that is already loaded (its bridge was defined
    /// before the tap): every message from then on is recorded. (A page that wrapped the
    /// bridge itself before the tap arrived is recorded as it calls its wrapper:
    /// docs/CDP.md, "What the tap cannot see".)
    /// With `pageTargets`, the recorder uses each page's own endpoint (`--page-targets`),
    /// the path an Android WebView's endpoint takes.
    @Test(arguments: [false, true])
    func aBridgeDefinedBeforeTheTapIsRecorded(pageTargets: Bool) throws {
        let dir = try temporaryFolder("before-\(pageTargets)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cdp = dir.appendingPathComponent("cdp.bsz").path, proxy = dir.appendingPathComponent("proxy.bsz").path
        _ = try run(["shapes", "--page-args", "delay=6000", "--record-attach", cdp, "--proxy-record", proxy]
                    + (pageTargets ? ["--record-args", "--page-targets"] : []), in: dir)
        let c = try records(cdp), p = try records(proxy)
        // The recorder attached after the host's greeting and the page's first calls.
        #expect(!c.contains { $0.body.contains("\"action\":\"host.ready\"") || $0.body.contains("not an envelope") })
        #expect(same(c.filter { $0.dir == "w2h" }.map(\.body), p.filter { $0.dir == "w2h" }.map(\.body)))
        #expect(same(c.filter { $0.dir == "h2w" }.map(\.body), p.filter { $0.dir == "h2w" && !$0.body.contains("\"action\":\"host.ready\"") }.map(\.body)))
        #expect(c.count >= 6, "\(c.map { $0.dir + " " + String($0.body.prefix(120)) })")
    }

    /// A reload in the middle of a journey: each document is its own connection of the
    /// same frame, every message recorded once, in the right one.
    @Test func aReloadMidJourneyIsTwoDocumentsOfOneFrame() throws {
        let dir = try temporaryFolder("reload")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cdp = dir.appendingPathComponent("cdp.bsz").path, proxy = dir.appendingPathComponent("proxy.bsz").path
        _ = try run(["shapes", "--page-args", "reload=1", "--record", cdp, "--proxy-record", proxy], in: dir)
        let c = try records(cdp).filter { !$0.body.contains("not an envelope") }, p = try records(proxy)
        let cConns = c.map(\.conn).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let pConns = p.map(\.conn).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        #expect(cConns.count == 2 && pConns.count == 2, "\(cConns) \(pConns)")
        #expect(Set(cConns.map { $0.split(separator: ".").prefix(2).joined(separator: ".") }).count == 1, "one frame: \(cConns)")
        for (cc, pc) in zip(cConns, pConns) {
            for dir in ["w2h", "h2w"] {
                #expect(same(c.filter { $0.conn == cc && $0.dir == dir }.map(\.body), p.filter { $0.conn == pc && $0.dir == dir }.map(\.body), "\(cc) \(dir)"))
            }
        }
    }

    /// The journey in an iframe from another origin (out-of-process in Chromium), talking
    /// to its host page with postMessage: both directions recorded once, under the
    /// journey's frame.
    @Test func anIframeJourneyFromAnotherOriginIsRecordedUnderItsFrame() throws {
        let dir = try temporaryFolder("iframe")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cdp = dir.appendingPathComponent("cdp.bsz").path, proxy = dir.appendingPathComponent("proxy.bsz").path
        _ = try run(["passport", "--iframe", "--record", cdp, "--proxy-record", proxy], in: dir)
        let c = try records(cdp), p = try records(proxy)
        for dir in ["w2h", "h2w"] {
            #expect(same(c.filter { $0.dir == dir }.map(\.body), p.filter { $0.dir == dir }.map(\.body), dir))
        }
        let conns = Set(c.map(\.conn))
        #expect(conns.count == 1, "\(conns)")
        let all = try runProcess(bin, ["cat", cdp, "--format", "jsonl"]).stdout
        let open = all.split(separator: "\n").first { $0.contains("\"event\":\"open\"") && $0.contains("\"conn\":\"\(conns.first ?? "")\"") }
        #expect(open?.contains("iframe http://localhost:") == true, "\(open ?? "no open event")")
    }

    /// Two journeys in two tabs at once: each tab's messages under its own connection.
    @Test func twoTabsAreTwoConnections() throws {
        let dir = try temporaryFolder("tabs")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cdp = dir.appendingPathComponent("cdp.bsz").path, proxy = dir.appendingPathComponent("proxy.bsz").path
        _ = try run(["shapes", "--tabs", "2", "--page-args", "delay=8000", "--record-attach", cdp, "--proxy-record", proxy], in: dir)
        // The page's own receive("not an envelope") is a host → web call only the tap sees;
        // the first tab greeted (host.ready) before the recorder attached.
        let c = try records(cdp).filter { !$0.body.contains("not an envelope") && !$0.body.contains("\"action\":\"host.ready\"") }
        let p = try records(proxy).filter { !$0.body.contains("\"action\":\"host.ready\"") }
        func byConn(_ r: [(conn: String, dir: String, body: String)], _ dir: String) -> Set<[String]> {
            Set(Dictionary(grouping: r.filter { $0.dir == dir }, by: \.conn).values.map { $0.map(\.body) })
        }
        #expect(Set(c.map(\.conn)).count == 2)
        for dir in ["w2h", "h2w"] {
            let a = byConn(c, dir), b = byConn(p, dir)
            #expect(a == b, "\(dir): per-tab message sequences differ (\(a.map(\.count)) vs \(b.map(\.count)))")
        }
    }

    @Test func aMissingOrForeignEndpointIsAClearError() throws {
        // Nothing listens on port 1: refused, before any archive is written.
        let out = TestScratch.rootURL.appendingPathComponent("cdp-refused-\(getpid()).bsz").path
        let r = try runProcess(bin, ["record", "-o", out, "--cdp", "http://127.0.0.1:1", "--quiet"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("cannot connect to http://127.0.0.1:1"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let bad = try runProcess(bin, ["record", "-o", out, "--cdp", "ws://127.0.0.1:9222"])
        #expect(bad.status != 0 && bad.stderr.contains("--cdp takes the DevTools HTTP endpoint"), "\(bad.stderr)")
    }
}
