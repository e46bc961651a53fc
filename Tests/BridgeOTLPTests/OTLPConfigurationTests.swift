import BridgeAnalysis
@testable import BridgeOTLP
import Foundation
import Testing

/// The parts of the exporter that need no collector: URLs, headers, `Retry-After`,
/// backoff, identifiers.
@Suite struct OTLPConfigurationTests {
    @Test(arguments: [
        ("http://127.0.0.1:4318", "127.0.0.1", 4318, "/v1/traces"),
        ("http://collector", "collector", 4318, "/v1/traces"),
        ("http://collector:9000/", "collector", 9000, "/v1/traces"),
        ("http://collector:9000/otlp/v1/traces", "collector", 9000, "/otlp/v1/traces"),
        ("http://[::1]:4318", "::1", 4318, "/v1/traces"),
    ])
    func endpoints(url: String, host: String, port: Int, path: String) throws {
        let e = try OTLPEndpoint(url)
        #expect(e.host == host && e.port == port && e.path == path)
    }

    @Test(arguments: ["https://collector:4318", "collector:4318", "http://:4318", "http://c:0", "http://c:x"])
    func badEndpoints(url: String) {
        #expect(throws: OTLPError.self) { try OTLPEndpoint(url) }
    }

    @Test func headers() throws {
        let h = try OTLPExporter.Configuration.header("Authorization=Bearer a=b")
        #expect(h.name == "Authorization" && h.value == "Bearer a=b")
        #expect(throws: OTLPError.self) { try OTLPExporter.Configuration.header("novalue") }
        #expect(throws: OTLPError.self) { try OTLPExporter.Configuration.header("Content-Type=text/plain") }
        #expect(throws: OTLPError.self) { try OTLPExporter.Configuration.header("X-A=b\r\nX-B: c") }
    }

    @Test func retryAfter() {
        #expect(OTLPRetryPolicy.retryAfter("3") == 3)
        #expect(OTLPRetryPolicy.retryAfter(nil) == nil)
        #expect(OTLPRetryPolicy.retryAfter("soon") == nil)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let later = OTLPRetryPolicy.retryAfter("Tue, 14 Nov 2023 22:13:40 GMT", now: now)
        #expect(later == 20)
        let policy = OTLPRetryPolicy(timeout: 30, initialBackoff: 0.5, maxBackoff: 8)
        #expect(policy.delay(afterAttempt: 1, retryAfter: 5) == 5)
        #expect((0.4...0.6).contains(policy.delay(afterAttempt: 1, retryAfter: nil)))
        #expect((6.4...9.6).contains(policy.delay(afterAttempt: 10, retryAfter: nil)))
    }

    @Test func identifiersDependOnTheSessionAndConnectionOnly() {
        let a = TraceIdentity.traceID(session: "archive|1|tap:x|h", connection: "c1")
        #expect(a.count == 16)
        #expect(a == TraceIdentity.traceID(session: "archive|1|tap:x|h", connection: "c1"))
        #expect(a != TraceIdentity.traceID(session: "archive|1|tap:x|h", connection: "c2"))
        #expect(a != TraceIdentity.traceID(session: "archive|2|tap:x|h", connection: "c1"))
        #expect(TraceIdentity.rootSpanID(trace: a).count == 8)
        #expect(TraceIdentity.requestSpanID(trace: a, record: 4) != TraceIdentity.requestSpanID(trace: a, record: 5))
        #expect(TraceIdentity.hex([0, 15, 255]) == "000fff")
    }
}
