import BridgeAnalysis
@testable import BridgeOTLP
import BridgeTestSupport
import Foundation
import Testing

/// One journey's spans drawn one at a time (``JourneySpans``), without a collector: the
/// root's events past the per-span limit continue in `journey.events` spans, nothing is
/// dropped, and the bytes are the ones the generated swift-protobuf code would write.
@Suite struct JourneySpansTests {
    typealias Span = Opentelemetry_Proto_Trace_V1_Span
    static let t0: Int64 = 1_700_000_000_000_000_000

    /// A real session (an archive of the samples), to take a connection and a header from.
    static func sample() throws -> SessionTrace {
        try OTLPExportTests.analyses([ProjectPaths.root.appendingPathComponent("captures/happy-passport.bsz").path])[0]
    }

    static func event(_ i: Int) -> JourneyStep {
        JourneyStep(kind: .event, action: "journey.progress", correlationId: "ev-\(i)", direction: .hostToWeb,
                    start: t0 + Int64(i) * 1000, records: [i])
    }

    static func request(_ i: Int) -> JourneyStep {
        JourneyStep(kind: .request, action: "camera.document.capture", correlationId: "rq-\(i)", direction: .webToHost,
                    start: t0 + Int64(i) * 1000, end: t0 + Int64(i) * 1000 + 500, outcome: "success", records: [i, i + 1])
    }

    /// Draws every span, checking each one's bytes against the generated code's.
    static func draw(_ journey: inout JourneySpans) throws -> [Span] {
        var spans: [Span] = []
        var w = ProtobufWriter()
        while journey.next(into: &w) {
            let scope = try Opentelemetry_Proto_Trace_V1_ScopeSpans(serializedBytes: w.bytes)
            #expect(try scope.serializedBytes() == w.bytes, "the generated code writes the same bytes")
            #expect(scope.spans.count == 1)
            spans.append(contentsOf: scope.spans)
            w = ProtobufWriter()
        }
        #expect(!journey.next(into: &w) && w.count == 0, "done stays done")
        return spans
    }

    static func attribute(_ s: Span, _ key: OTLPAttribute) -> Opentelemetry_Proto_Common_V1_AnyValue? {
        s.attributes.first { $0.key == key.rawValue }?.value
    }

    @Test func aRootWithMoreEventsThanTheLimitContinuesInJourneyEventsSpans() throws {
        let session = try Self.sample()
        var c = session.report.connections[0]
        c.steps = (0..<2500).flatMap { i in i % 250 == 0 ? [Self.request(100_000 + i * 2), Self.event(i)] : [Self.event(i)] }
        let findings = [
            ReportFinding(rule: .lateResponse, message: "late", connection: c.id, records: [100_001], time: Self.t0),
            ReportFinding(rule: .lateResponse, message: "end 1", connection: c.id, time: nil),
            ReportFinding(rule: .lateResponse, message: "end 2", connection: c.id, records: [7], time: Self.t0 + 5),
        ]
        var journey = JourneySpans(connection: c, identity: session.identity, findings: findings, maxEvents: 1000)
        #expect(journey.rootEventCount == 2502 && journey.eventSpans == 3)
        let spans = try Self.draw(&journey)
        #expect(journey.mostPending == 1000)

        let requests = spans.filter { $0.name == "camera.document.capture" }
        #expect(requests.count == 10)
        #expect(requests.filter { $0.events.contains { $0.name == "finding" } }.count == 1)
        let root = try #require(spans.first { $0.name == "journey" })
        #expect(root.spanID == Data(journey.rootID))
        #expect(Self.attribute(root, .journeyEvents)?.intValue == 2502)
        #expect(Self.attribute(root, .journeyEventSpans)?.intValue == 3)
        let parts = spans.filter { $0.name == "journey.events" }
        #expect(parts.map { Self.attribute($0, .journeyEventPart)?.intValue } == [2, 3])
        #expect(parts.allSatisfy { $0.parentSpanID == Data(journey.rootID) && $0.traceID == Data(journey.trace) })
        #expect(parts.map(\.spanID) == [2, 3].map { Data(TraceIdentity.eventsSpanID(traceHex: journey.traceHex, part: $0)) })
        #expect([root.events.count] + parts.map(\.events.count) == [1000, 1000, 502])
        // Every event once, in order: the journey's events, then the findings on the root.
        let events = ([root] + parts).flatMap(\.events)
        let expected = (0..<2500).map { "journey.progress@\(Self.t0 + Int64($0) * 1000)" }
            + ["finding@\(c.lastTime)", "finding@\(Self.t0 + 5)"]
        #expect(events.map { "\($0.name)@\($0.timeUnixNano)" } == expected)
        #expect(parts[0].startTimeUnixNano == UInt64(Self.t0 + 1000 * 1000))
        #expect(parts[0].endTimeUnixNano == UInt64(Self.t0 + 1999 * 1000))
    }

    @Test(arguments: [0, 1, 999, 1000])
    func upToTheLimitTheRootIsOneSpanAsBefore(events: Int) throws {
        let session = try Self.sample()
        var c = session.report.connections[0]
        c.steps = (0..<events).map(Self.event) + [Self.request(50_000)]
        var journey = JourneySpans(connection: c, identity: session.identity, findings: [], maxEvents: 1000)
        let spans = try Self.draw(&journey)
        #expect(spans.map(\.name).sorted() == ["camera.document.capture", "journey"])
        let root = try #require(spans.first { $0.name == "journey" })
        #expect(root.events.count == events)
        #expect(Self.attribute(root, .journeyEvents) == nil && Self.attribute(root, .journeyEventSpans) == nil)
    }

    @Test func theSampleSessionsEncodeAsTheGeneratedCodeDoes() throws {
        for session in try OTLPExportTests.analyses(OTLPExportTests.sessions) {
            let findings = TraceMapper().findingsByConnection(session.report)
            for c in session.report.connections {
                var journey = TraceMapper().journey(c, session: session, findings: findings[c.id] ?? [])
                let spans = try Self.draw(&journey)
                #expect(spans.count == 1 + c.steps.filter { $0.kind == .request }.count, "\(session.report.source)")
                let resource = try Opentelemetry_Proto_Resource_V1_Resource(serializedBytes: TraceMapper().resource(session, connection: c))
                #expect(resource.attributes.first?.value.stringValue == "gbgbridge-journey")
            }
        }
    }

    @Test func longValuesNegativeNumbersAndClampedTimes() throws {
        let session = try Self.sample()
        var c = session.report.connections[0]
        var long = Self.request(3)
        long.detail = String(repeating: "é", count: 20_000)
        long.start = -5
        long.records = [-1, Int.max, 0]
        c.steps = [long, Self.event(1)]
        var journey = JourneySpans(connection: c, identity: session.identity, findings: [], maxEvents: 1)
        let spans = try Self.draw(&journey)
        #expect(spans[0].startTimeUnixNano == 0)
        #expect(Self.attribute(spans[0], .detail)?.stringValue == long.detail)
        #expect(Self.attribute(spans[0], .records)?.arrayValue.values.map(\.intValue) == [-1, Int64.max, 0])
    }
}
