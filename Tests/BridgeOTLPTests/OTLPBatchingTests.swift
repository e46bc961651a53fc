import BridgeAnalysis
@testable import BridgeOTLP
import BridgeTestSupport
import Foundation
import Testing

/// How the exporter cuts what it sends into requests, checked by counts on the bodies it
/// hands over (a sink in place of the collector): every batch size delivers the same
/// spans, and a long journey is sent in requests bounded in spans and bytes while the
/// root's events wait in bounded number.
@Suite struct OTLPBatchingTests {
    typealias Request = Opentelemetry_Proto_Collector_Trace_V1_ExportTraceServiceRequest

    /// Exports `sessions` with `configure` applied; returns the requests and the exporter.
    static func export(_ sessions: [SessionTrace], _ configure: (inout OTLPExporter.Configuration) -> Void) async throws
        -> (requests: [Request], bodies: [[UInt8]], exporter: OTLPExporter) {
        var configuration = OTLPExporter.Configuration(endpoint: try OTLPEndpoint("http://127.0.0.1:9"))
        configure(&configuration)
        let exporter = OTLPExporter(configuration: configuration)
        var bodies: [[UInt8]] = []
        exporter.testSink = { bodies.append($0) }
        for s in sessions { try await exporter.add(s) }
        let summary = try await exporter.finish()
        #expect(summary.requests == bodies.count && summary.accepted == summary.spans && summary.unsent == 0)
        return (try bodies.map { try Request(serializedBytes: $0) }, bodies, exporter)
    }

    /// Every span of the requests with its resource, as bytes (what the collector gets).
    static func spans(_ requests: [Request]) throws -> [[UInt8]] {
        try requests.flatMap { r in
            try r.resourceSpans.flatMap { rs in
                try rs.scopeSpans.flatMap { ss in
                    try ss.spans.map { try rs.resource.serializedBytes() + ss.scope.serializedBytes() + $0.serializedBytes() }
                }
            }
        }
    }

    @Test func everyBatchSizeDeliversTheSameSpansInOrder() async throws {
        let sessions = try OTLPExportTests.analyses(OTLPExportTests.sessions)
        let whole = try await Self.export(sessions) { _ in }
        #expect(whole.requests.count == 1)
        let all = try Self.spans(whole.requests)
        #expect(all.count == OTLPExportTests.spanCount(sessions))
        for size in [1, 3, 7, 100] {
            let cut = try await Self.export(sessions) { $0.maxBatchSpans = size }
            #expect(cut.requests.count == (all.count + size - 1) / size, "batch \(size)")
            #expect(cut.requests.allSatisfy { $0.resourceSpans.reduce(0) { $0 + $1.scopeSpans[0].spans.count } <= size })
            #expect(cut.requests.allSatisfy { $0.resourceSpans.allSatisfy { $0.scopeSpans.count == 1 && !$0.scopeSpans[0].spans.isEmpty } })
            #expect(try Self.spans(cut.requests) == all, "batch \(size)")
            #expect(cut.exporter.largestBatch.spans == size)
        }
    }

    @Test func aLongJourneyIsSentInBoundedRequests() async throws {
        var session = try JourneySpansTests.sample()
        var c = session.report.connections[0]
        c.steps = (0..<30_000).flatMap { i in i % 3 == 0 ? [JourneySpansTests.request(1_000_000 + 2 * i), JourneySpansTests.event(i)] : [JourneySpansTests.event(i)] }
        session.report.connections = [c]
        session.report.findings = []
        let maxBytes = 64 << 10
        let r = try await Self.export([session]) {
            $0.maxBatchSpans = 500
            $0.maxBatchBytes = maxBytes
            $0.maxEventsPerSpan = 1000
        }
        let spans = r.requests.flatMap { $0.resourceSpans.flatMap { $0.scopeSpans.flatMap(\.spans) } }
        #expect(spans.count == 10_000 + 30)
        #expect(Set(spans.map(\.spanID)).count == spans.count)
        #expect(Set(spans.map(\.traceID)).count == 1)
        #expect(spans.reduce(0) { $0 + $1.events.count } == 30_000)
        #expect(spans.filter { $0.name == "journey.events" }.count == 29)
        // Bounded by counts: a request holds at most 500 spans, and at most maxBytes plus
        // its last span; a journey never holds more than 1,000 root events at once.
        let largestSpan = try spans.map { (try $0.serializedBytes() as [UInt8]).count }.max() ?? 0
        #expect(r.exporter.largestBatch.spans <= 500)
        #expect(r.bodies.allSatisfy { $0.count < maxBytes + largestSpan + 200 })
        let counts = r.requests.map { $0.resourceSpans.reduce(0) { $0 + $1.scopeSpans[0].spans.count } }
        #expect(zip(counts, r.bodies).dropLast().allSatisfy { $0 == 500 || $1.count >= maxBytes }, "a request is sent only when full")
        #expect(r.exporter.mostPendingEvents == 1000)
        #expect(r.requests.count > 10_030 / 500)
    }
}
