import Foundation
import Logging
import NIOHTTP1
import SwiftProtobuf

/// Sends sessions to an OpenTelemetry collector over OTLP/HTTP with protobuf
/// (`POST /v1/traces`, `application/x-protobuf`), as a real exporter does:
///
/// - **Batches**: spans are gathered until ``Configuration/maxBatchSpans`` spans
///   (default 2,048) or ``Configuration/maxBatchBytes`` bytes (default 4 MiB), then
///   sent as one `ExportTraceServiceRequest`; a journey with more spans is split over
///   requests (same trace id).
/// - **Bounded memory**: spans are encoded one at a time straight into the batch's
///   body and a batch is sent as soon as it holds ``Configuration/maxBatchSpans``
///   spans or ``Configuration/maxBatchBytes`` bytes; ``add(_:)`` waits while it is
///   being delivered, so memory is one batch plus the session's analysis, whatever the
///   number of sessions and the length of a journey.
/// - **Retries** per ``OTLPRetryPolicy``: 429/502/503/504 and failed connections, with
///   backoff and `Retry-After`, within the policy's timeout; then ``add(_:)`` or
///   ``finish()`` throws ``OTLPError`` `unreachable` naming the endpoint and the last
///   reason. Another status (400, 401, 413, ...) rejects that batch's spans (counted,
///   with the collector's message) and the export goes on.
/// - **Counts**: ``summary``, from the answers, `partial_success.rejected_spans`
///   included. Nothing is dropped silently.
///
/// Not thread-safe: one task drives it.
public final class OTLPExporter {
    /// How the exporter sends.
    public struct Configuration: Sendable {
        /// The collector.
        public var endpoint: OTLPEndpoint
        /// Extra request headers (`--otlp-header`, for authentication).
        public var headers: [(name: String, value: String)]
        /// Retries and the timeout of one batch.
        public var retry: OTLPRetryPolicy
        /// Spans per request. Default 2,048.
        public var maxBatchSpans: Int
        /// Bytes per request: a request is sent once its body reaches this size, even with
        /// fewer than ``maxBatchSpans`` spans (it may exceed it by its last span). Default
        /// 4 MiB: the OpenTelemetry Collector takes 20 MiB per HTTP request by default,
        /// gRPC receivers 4 MiB.
        public var maxBatchBytes: Int
        /// Events per span: a journey's root span takes its first N events and the rest
        /// go to `journey.events` spans of N events each (docs/OTLP.md, "Limits").
        /// Default 1,000.
        public var maxEventsPerSpan: Int

        /// Creates a configuration.
        public init(endpoint: OTLPEndpoint, headers: [(name: String, value: String)] = [],
                    retry: OTLPRetryPolicy = OTLPRetryPolicy(), maxBatchSpans: Int = 2048,
                    maxBatchBytes: Int = 4 << 20, maxEventsPerSpan: Int = 1000) {
            self.endpoint = endpoint
            self.headers = headers
            self.retry = retry
            self.maxBatchSpans = Swift.max(1, maxBatchSpans)
            self.maxBatchBytes = Swift.max(1, maxBatchBytes)
            self.maxEventsPerSpan = Swift.max(1, maxEventsPerSpan)
        }

        /// Parses a `KEY=VALUE` header argument; throws ``OTLPError`` `bad-header`.
        public static func header(_ argument: String) throws(OTLPError) -> (name: String, value: String) {
            guard let eq = argument.firstIndex(of: "="), eq != argument.startIndex else {
                throw OTLPError(.badHeader, "--otlp-header \"\(argument)\": give KEY=VALUE, e.g. Authorization=Bearer TOKEN")
            }
            let name = String(argument[..<eq]).trimmingCharacters(in: .whitespaces)
            let value = String(argument[argument.index(after: eq)...])
            let reserved = ["host", "content-type", "content-length", "transfer-encoding", "connection"]
            guard !reserved.contains(name.lowercased()) else {
                throw OTLPError(.badHeader, "--otlp-header \(name): the exporter sets this header itself")
            }
            guard name.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: ":") }),
                  !value.utf8.contains(where: { $0 == 13 || $0 == 10 }) else {
                throw OTLPError(.badHeader, "--otlp-header \"\(argument)\": a header name is printable ASCII without ':', and a value has no line break")
            }
            return (name, value)
        }
    }

    /// The configuration.
    public let configuration: Configuration
    /// What was delivered so far.
    public internal(set) var summary = OTLPExportSummary()
    let connection: OTLPHTTPConnection
    let logger: Logger
    let mapper: TraceMapper
    private var encoder = OTLPRequestEncoder()
    /// The largest request sent, in spans and in bytes (for tests of the bounds).
    internal(set) var largestBatch = (spans: 0, bytes: 0)
    /// The most root events one journey held at once, waiting for their span.
    private(set) var mostPendingEvents = 0
    /// Replaces the collector in tests: takes each body and accepts all its spans.
    var testSink: (([UInt8]) -> Void)?

    /// Creates an exporter (it connects on the first send).
    public init(configuration: Configuration, logger: Logger = Logger(label: "bridgescope.otlp")) {
        self.configuration = configuration
        self.logger = logger
        self.connection = OTLPHTTPConnection(endpoint: configuration.endpoint, logger: logger)
        self.mapper = TraceMapper()
    }

    /// Maps one session to traces and queues its spans, sending each batch as it fills:
    /// spans are encoded one at a time (``JourneySpans``), so memory is one batch plus
    /// the session's analysis. Throws when the collector stays unreachable (see the
    /// type's documentation).
    public func add(_ session: SessionTrace) async throws(OTLPError) {
        let started = ContinuousClock.now, waited = summary.waitingSeconds
        defer { countEncoding(since: started, waited: waited) }
        summary.sessions += 1
        let findings = mapper.findingsByConnection(session.report)
        for c in session.report.connections {
            summary.traces += 1
            let resource = mapper.resource(session, connection: c)
            var journey = mapper.journey(c, session: session, findings: findings[c.id] ?? [],
                                         maxEvents: configuration.maxEventsPerSpan)
            encoder.open(resource: resource, scope: TraceMapper.scope)
            while journey.next(into: &encoder.writer) {
                encoder.spanWritten()
                summary.spans += 1
                if encoder.spans >= configuration.maxBatchSpans || encoder.byteCount >= configuration.maxBatchBytes {
                    // A journey larger than the room left is cut: each piece keeps resource and scope.
                    try await flush()
                    encoder.open(resource: resource, scope: TraceMapper.scope)
                }
            }
            encoder.close()
            mostPendingEvents = Swift.max(mostPendingEvents, journey.mostPending)
        }
    }

    /// Sends what is queued and closes the connection; returns the final counts.
    public func finish() async throws(OTLPError) -> OTLPExportSummary {
        let started = ContinuousClock.now, waited = summary.waitingSeconds
        do throws(OTLPError) {
            try await flush()
        } catch {
            countEncoding(since: started, waited: waited)
            throw error
        }
        countEncoding(since: started, waited: waited)
        await connection.close()
        return summary
    }

    /// Adds the time since `started`, less the time spent waiting for the collector, to
    /// the mapping and encoding time.
    private func countEncoding(since started: ContinuousClock.Instant, waited: Double) {
        let elapsed = OTLPHTTPConnection.seconds(ContinuousClock.now - started)
        summary.encodingSeconds += Swift.max(0, elapsed - (summary.waitingSeconds - waited))
    }

    /// Sends the queued batch, retrying as the policy allows.
    func flush() async throws(OTLPError) {
        let spans = encoder.spans
        guard spans > 0 else {
            encoder.close()
            return
        }
        let body = encoder.take()
        largestBatch = (Swift.max(largestBatch.spans, spans), Swift.max(largestBatch.bytes, body.count))
        try await deliver(body, spans: spans)
    }

    /// Posts one encoded batch of `spans` spans until it is answered for good.
    func deliver(_ body: [UInt8], spans: Int) async throws(OTLPError) {
        var headers = HTTPHeaders()
        headers.add(name: "User-Agent", value: "bridgescope/\(TraceMapper.toolVersion)")
        for h in configuration.headers { headers.add(name: h.name, value: h.value) }
        let policy = configuration.retry
        let started = ContinuousClock.now
        defer { summary.waitingSeconds += OTLPHTTPConnection.seconds(ContinuousClock.now - started) }
        if let testSink {
            testSink(body)
            summary.requests += 1
            summary.sent += spans
            summary.accepted += spans
            return
        }
        var attempt = 0
        while true {
            attempt += 1
            let left = policy.timeout - OTLPHTTPConnection.seconds(ContinuousClock.now - started)
            let reason: String
            var retryAfter: Double? = nil
            do throws(OTLPHTTPConnection.Failure) {
                let response = try await connection.post(body: body, headers: headers, timeout: left)
                summary.requests += 1
                if (200..<300).contains(response.status) {
                    accept(response, spans: spans)
                    return
                }
                reason = "HTTP \(response.status)\(Self.text(response).map { ": \($0)" } ?? "")"
                guard OTLPRetryPolicy.retryableStatuses.contains(response.status) else {
                    summary.sent += spans
                    summary.rejected += spans
                    note("\(spans) spans refused with \(reason)")
                    logger.error("batch refused", metadata: ["status": "\(response.status)"])
                    return
                }
                retryAfter = OTLPRetryPolicy.retryAfter(response.headers.first(name: "Retry-After"))
            } catch {
                reason = error.description
            }
            let wait = policy.delay(afterAttempt: attempt, retryAfter: retryAfter)
            let remaining = policy.timeout - OTLPHTTPConnection.seconds(ContinuousClock.now - started)
            guard wait < remaining else {
                throw OTLPError(.unreachable, "\(configuration.endpoint): \(reason) (\(attempt) attempt\(attempt == 1 ? "" : "s") in \(OTLPHTTPConnection.format(policy.timeout - remaining)) s\(retryAfter.map { ", Retry-After \(OTLPHTTPConnection.format($0)) s" } ?? ""); the batch timeout is \(OTLPHTTPConnection.format(policy.timeout)) s, --otlp-timeout); is the collector running and listening for OTLP/HTTP there?")
            }
            summary.retries += 1
            logger.info("retrying", metadata: ["reason": "\(reason)", "wait": "\(wait)"])
            try? await Task.sleep(for: .nanoseconds(Int64(wait * 1e9)))
        }
    }

    /// Counts an answered batch, reading `partial_success`.
    func accept(_ response: OTLPHTTPResponse, spans: Int) {
        summary.sent += spans
        var rejected = 0
        let type = response.headers.first(name: "Content-Type") ?? ""
        if !response.body.isEmpty, type.hasPrefix("application/x-protobuf") || type.isEmpty,
           let answer = try? Opentelemetry_Proto_Collector_Trace_V1_ExportTraceServiceResponse(serializedBytes: response.body),
           answer.hasPartialSuccess {
            rejected = Int(clamping: answer.partialSuccess.rejectedSpans)
            if !answer.partialSuccess.errorMessage.isEmpty {
                note(answer.partialSuccess.errorMessage)
            }
        }
        rejected = Swift.min(rejected, spans)
        summary.rejected += rejected
        summary.accepted += spans - rejected
    }

    private func note(_ message: String) {
        if summary.rejectionMessages.count < 5, !summary.rejectionMessages.contains(message) {
            summary.rejectionMessages.append(message)
        }
    }

    /// A response body as a short text, when it is text.
    static func text(_ r: OTLPHTTPResponse) -> String? {
        guard !r.body.isEmpty, let s = String(validating: r.body.prefix(200), as: UTF8.self),
              s.unicodeScalars.allSatisfy({ $0.value >= 32 || $0 == "\n" }) else { return nil }
        return s.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
