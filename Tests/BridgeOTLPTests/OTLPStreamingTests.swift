import BridgeAnalysis
@testable import BridgeOTLP
import BridgeTestSupport
import Foundation
import Synchronization
import Testing

/// `export --otlp` streams (docs/OTLP.md, "Memory"): the spans it sends are those the
/// whole-session export sent (each session analysed whole, then mapped; still how
/// `analyze --otlp` maps its reports), with bodies taken by a sink in place of the
/// collector.
@Suite struct OTLPStreamingTests {
    typealias Request = Opentelemetry_Proto_Collector_Trace_V1_ExportTraceServiceRequest
    typealias Span = Opentelemetry_Proto_Trace_V1_Span

    /// The bodies a streamed export hands over.
    final class Bodies: Sendable {
        let bodies = Mutex<[[UInt8]]>([])
        func add(_ body: [UInt8]) { bodies.withLock { $0.append(body) } }
        func requests() throws -> [Request] { try bodies.withLock { $0 }.map { try Request(serializedBytes: $0) } }
    }

    /// Streams `paths` with `configure` and `analysis`; the requests and the outcome.
    static func stream(_ paths: [String], analysis: AnalyzerConfiguration = OTLPSessionExport.exportAnalysis,
                       _ configure: (inout OTLPExporter.Configuration) -> Void = { _ in }) async throws
        -> (requests: [Request], outcome: OTLPSessionExport.Outcome) {
        var configuration = OTLPExporter.Configuration(endpoint: try OTLPEndpoint("http://127.0.0.1:9"))
        configure(&configuration)
        var export = OTLPSessionExport(configuration: configuration, analysis: analysis)
        let bodies = Bodies()
        export.testSink = { bodies.add($0) }
        let outcome = await export.run(paths)
        return (try bodies.requests(), outcome)
    }

    /// Every span with its resource and scope, as bytes, in canonical order (by trace and
    /// span id): what a collector keeps, whatever the requests it came in.
    static func canonical(_ requests: [Request]) throws -> [[UInt8]] {
        var spans: [(key: [UInt8], bytes: [UInt8])] = []
        for r in requests {
            for rs in r.resourceSpans {
                for ss in rs.scopeSpans {
                    for s in ss.spans {
                        spans.append((Array(s.traceID + s.spanID),
                                      try rs.resource.serializedBytes() + ss.scope.serializedBytes() + s.serializedBytes()))
                    }
                }
            }
        }
        return spans.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map(\.bytes)
    }

    /// Sample sessions, planted-defect sessions (two-sided ones among them), with the
    /// default limits and with tiny ones (batches of 7 spans, roots of 3 events, so that
    /// every journey with events continues in `journey.events` spans).
    @Test(arguments: [(2048, 1000), (7, 3)])
    func streamedExportEqualsTheWholeSessionExport(batch: Int, events: Int) async throws {
        let paths = OTLPExportTests.sessions
        #expect(paths.count > 20)
        #expect(paths.contains { $0.contains("bridge-member-changed") }, "a two-sided recording is among them")
        let configure: (inout OTLPExporter.Configuration) -> Void = {
            $0.maxBatchSpans = batch
            $0.maxEventsPerSpan = events
        }
        let whole = try await OTLPBatchingTests.export(OTLPExportTests.analyses(paths), configure)
        let streamed = try await Self.stream(paths, configure)
        let expected = try Self.canonical(whole.requests), got = try Self.canonical(streamed.requests)
        #expect(got.count == expected.count)
        #expect(got == expected)
        #expect(streamed.outcome.summary.spans == expected.count && streamed.outcome.summary.accepted == expected.count)
        #expect(streamed.outcome.summary.sessions == paths.count)
        #expect(streamed.outcome.summary.traces == whole.exporter.summary.traces)
        #expect(streamed.outcome.error == nil && streamed.outcome.failures.isEmpty)
        #expect(streamed.requests.allSatisfy { $0.resourceSpans.reduce(0) { $0 + $1.scopeSpans[0].spans.count } <= batch })
        // Where they differ, say which span.
        for (a, b) in zip(got, expected) where a != b {
            Issue.record("first differing span: streamed \(a.count) bytes, whole \(b.count) bytes")
            break
        }
    }

    /// A tap log line of connection c1.
    static func line(_ t: Int, _ dir: String, _ msg: String) -> String {
        "{\"t\":\(1_763_830_000_000_000_000 + t * 1_000_000),\"dir\":\"\(dir)\",\"conn\":\"c1\",\"msg\":\(msg)}"
    }

    static func request(_ id: String, _ t: Int) -> String {
        line(t, "w2h", "{\"version\":\"1.0\",\"correlationId\":\"\(id)\",\"type\":\"request\",\"timestamp\":\(1_763_830_000_000 + t),\"payload\":{\"action\":\"nfc.read\",\"data\":{}}}")
    }

    static func writeLog(_ lines: [String], name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("otlp-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent(name).path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func requestsPastTheOpenRequestLimitAreClosedAsTruncated() async throws {
        let ready = Self.line(0, "h2w", "{\"version\":\"1.0\",\"correlationId\":\"e1\",\"type\":\"event\",\"timestamp\":1763830000000,\"payload\":{\"action\":\"host.ready\",\"data\":{}}}")
        let answer = Self.line(9, "h2w", "{\"version\":\"1.0\",\"correlationId\":\"r1\",\"type\":\"response\",\"timestamp\":1763830000009,\"payload\":{\"action\":\"nfc.read\",\"status\":\"success\",\"data\":{}}}")
        let path = try Self.writeLog([ready] + (1...5).map { Self.request("r\($0)", $0) } + [answer], name: "open.ndjson")
        var analysis = OTLPSessionExport.exportAnalysis
        analysis.limits.maxOpenRequestsPerConnection = 3
        let r = try await Self.stream([path], analysis: analysis)
        let spans = r.requests.flatMap { $0.resourceSpans.flatMap { $0.scopeSpans.flatMap(\.spans) } }
        #expect(spans.count == 6, "the root and the 5 requests")
        func attribute(_ s: Span, _ key: OTLPAttribute) -> Opentelemetry_Proto_Common_V1_AnyValue? {
            s.attributes.first { $0.key == key.rawValue }?.value
        }
        let truncated = spans.filter { attribute($0, .truncated) != nil }
        #expect(truncated.map { attribute($0, .correlationId)?.stringValue }.map { $0 ?? "" }.sorted() == ["r4", "r5"])
        for s in truncated {
            #expect(attribute(s, .truncated)?.stringValue == "open-request-limit")
            #expect(attribute(s, .status)?.stringValue == "untracked")
            #expect(s.startTimeUnixNano == s.endTimeUnixNano)
            #expect(s.status.code == .error && s.status.message.contains("open-request limit"))
        }
        let tracked = spans.filter { $0.name == "nfc.read" && attribute($0, .truncated) == nil }
        #expect(tracked.map { attribute($0, .status)?.stringValue ?? "" }.sorted() == ["success", "unanswered", "unanswered"])
    }

    /// An archive of several zstd frames: 3,000 answered requests with padding (about
    /// 2 MB before compression), recorded by `record --tap`.
    static func longArchive() throws -> String {
        var lines = [line(0, "h2w", "{\"version\":\"1.0\",\"correlationId\":\"e1\",\"type\":\"event\",\"timestamp\":1763830000000,\"payload\":{\"action\":\"host.ready\",\"data\":{}}}")]
        for i in 1...3000 {
            let pad = String(repeating: "\(i % 10)", count: 300)
            lines.append(request("r\(i)", 2 * i))
            lines.append(line(2 * i + 1, "h2w", "{\"version\":\"1.0\",\"correlationId\":\"r\(i)\",\"type\":\"response\",\"timestamp\":\(1_763_830_000_001 + 2 * i),\"payload\":{\"action\":\"nfc.read\",\"status\":\"success\",\"data\":{\"pad\":\"\(pad)\"}}}"))
        }
        let log = try writeLog(lines, name: "long.ndjson")
        let archive = log.replacingOccurrences(of: ".ndjson", with: ".bsz")
        let r = try runBridgescope(["record", "-o", archive, "--tap", log, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        return archive
    }

    @Test func anArchiveCutMidRecordExportsWhatWasWholeAndSaysWhere() async throws {
        let whole = try Self.longArchive()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let path = whole.replacingOccurrences(of: ".bsz", with: "-cut.bsz")
        try bytes.prefix(bytes.count * 2 / 3 + 7).write(to: URL(fileURLWithPath: path))
        let full = try await Self.stream([whole])
        let fullSpans = full.requests.flatMap { $0.resourceSpans.flatMap { $0.scopeSpans.flatMap(\.spans) } }
        #expect(fullSpans.count == 3001 && full.outcome.damaged.isEmpty)
        let r = try await Self.stream([path])
        #expect(r.outcome.damaged == [path] && r.outcome.error == nil)
        let spans = r.requests.flatMap { $0.resourceSpans.flatMap { $0.scopeSpans.flatMap(\.spans) } }
        #expect(spans.count > 1000 && spans.count < fullSpans.count, "what was whole is exported: \(spans.count) spans")
        // Every answered request exported is as the whole archive has it, but the last
        // (`journey-incomplete` names it there).
        let fullByID = Dictionary(fullSpans.map { ($0.spanID, $0) }, uniquingKeysWith: { a, _ in a })
        let requests = spans.filter { $0.name == "nfc.read" && $0.attributes.contains { $0.key == "bridgescope.status" && $0.value.stringValue == "success" } }
        #expect(requests.count > 1000)
        #expect(requests.filter { fullByID[$0.spanID] != $0 }.count <= 1)
        // The capture-error finding names the last whole record.
        let findings = spans.flatMap(\.events).filter { $0.name == "finding" }
        let messages = findings.flatMap(\.attributes).filter { $0.key == "bridgescope.finding.message" }.map(\.value.stringValue)
        #expect(messages.contains { $0.contains("truncated") && $0.contains("after seq") }, "\(messages)")
    }
}
