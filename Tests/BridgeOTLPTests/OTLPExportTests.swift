import BridgeAnalysis
import BridgeArchive
@testable import BridgeOTLP
import BridgeTestSupport
import Foundation
import Testing

/// `export --otlp` against a receiver that decodes with the official OpenTelemetry
/// classes (tools/otlp/receiver.py): what arrives is what docs/OTLP.md says.
@Suite(.serialized, .enabled("pip could not reach PyPI to install opentelemetry-proto; the OTLP receiver tests need it") { OTLPReceiver.available })
struct OTLPExportTests {
    /// The sample sessions and the analyzer's planted-defect sessions (tap logs).
    static var sessions: [String] {
        let root = ProjectPaths.root
        let captures = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("captures").path)) ?? []
        let fixtures = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Tests/BridgeAnalysisTests/Fixtures").path)) ?? []
        return captures.filter { $0.hasSuffix(".bsz") }.sorted().map { root.appendingPathComponent("captures/\($0)").path }
            + fixtures.filter { $0.hasSuffix(".trigger.ndjson") }.sorted().map { root.appendingPathComponent("Tests/BridgeAnalysisTests/Fixtures/\($0)").path }
    }

    /// Each session analysed in-process, as the exporter does.
    static func analyses(_ paths: [String]) throws -> [SessionTrace] {
        try paths.map { path in
            var source = try SessionInput.open(path)
            let header = (source as? ArchiveEventSource)?.header
            let report = try SessionAnalyzer.analyze(&source, name: path, configuration: OTLPSessionExport.exportAnalysis)
            return SessionTrace(report: report, header: header)
        }
    }

    /// Journeys plus requests.
    static func spanCount(_ traces: [SessionTrace]) -> Int {
        traces.reduce(0) { $0 + $1.report.connections.reduce(0) { $0 + 1 + $1.requests } }
    }

    @Test func spansAreTheRequestsAndJourneysAtTheirRecordedTimes() throws {
        let paths = Self.sessions
        #expect(paths.count > 20)
        let receiver = try OTLPReceiver()
        let r = try runBridgescope(["export"] + paths + ["--otlp", receiver.url, "--otlp-header", "X-Scope-OrgID=support"])
        let (_, spans) = try receiver.stop()
        // Some planted sessions are damaged on purpose (capture-error): exit 1 says so.
        #expect(r.status == 1, "\(r.stderr)")
        let expected = try Self.analyses(paths)
        let journeys = expected.reduce(0) { $0 + $1.report.connections.count }
        let requests = expected.reduce(0) { $0 + $1.report.connections.reduce(0) { $0 + $1.requests } }
        #expect(spans.count == journeys + requests)
        #expect(r.stderr.contains("otlp: sent \(journeys + requests) spans (\(journeys) traces from \(paths.count) sessions) in 1 request: \(journeys + requests) accepted, 0 rejected"), "\(r.stderr)")
        #expect(spans.allSatisfy { ($0["headers"] as? [String: String])?["x-scope-orgid"] == "support" })

        var bySpan: [String: [String: Any]] = [:]
        for s in spans { bySpan["\(s["traceId"]!)/\(s["spanId"]!)"] = s }
        #expect(bySpan.count == spans.count, "span ids are unique")
        for session in expected {
            for c in session.report.connections {
                let trace = TraceIdentity.hex(TraceIdentity.traceID(session: session.identity, connection: c.id))
                let rootID = TraceIdentity.hex(TraceIdentity.rootSpanID(trace: TraceIdentity.traceID(session: session.identity, connection: c.id)))
                guard let root = bySpan["\(trace)/\(rootID)"] else {
                    Issue.record("no journey span for \(session.report.source) \(c.id)")
                    continue
                }
                #expect(root["name"] as? String == "journey")
                #expect(root["start"] as? Int64 == c.firstTime)
                #expect(root["end"] as? Int64 == c.lastTime)
                let rootAttributes = root["attributes"] as! [String: Any]
                #expect(rootAttributes["bridgescope.journey.outcome"] as? String == c.outcome.state)
                let resource = root["resource"] as! [String: Any]
                #expect(resource["service.name"] as? String == "gbgbridge-journey")
                #expect(resource["service.version"] as? String == c.hostVersion)
                #expect(resource["deployment.environment.name"] as? String == c.environment)
                #expect(resource["bridgescope.session.source"] as? String == session.header?.source)
                #expect(resource["bridgescope.session.file"] as? String == session.report.source)
                let events = root["events"] as! [[String: Any]]
                let stepEvents = c.steps.filter { $0.kind != .request }
                for step in stepEvents {
                    #expect(events.contains { $0["name"] as? String == step.action && $0["time"] as? Int64 == step.start },
                            "\(session.report.source): event \(step.action) at \(step.start)")
                }
                for step in c.steps where step.kind == .request {
                    let id = TraceIdentity.hex(TraceIdentity.requestSpanID(trace: TraceIdentity.traceID(session: session.identity, connection: c.id), record: step.records[0]))
                    guard let span = bySpan["\(trace)/\(id)"] else {
                        Issue.record("no span for \(session.report.source) \(c.id) \(step.action) \(step.correlationId ?? "")")
                        continue
                    }
                    #expect(span["parentSpanId"] as? String == rootID)
                    #expect(span["name"] as? String == step.action)
                    #expect(span["kind"] as? Int == 3)
                    #expect(span["start"] as? Int64 == step.start)
                    #expect(span["end"] as? Int64 == (step.end ?? c.lastTime))
                    let a = span["attributes"] as! [String: Any]
                    #expect(a["rpc.system"] as? String == "gbgbridge")
                    #expect(a["rpc.method"] as? String == step.action)
                    #expect(a["bridgescope.correlation_id"] as? String == step.correlationId)
                    #expect(a["bridgescope.connection"] as? String == c.id)
                    #expect(a["bridgescope.status"] as? String == (step.outcome ?? "unanswered"))
                    #expect(a["bridgescope.error.code"] as? String == step.errorCode)
                    #expect(a["bridgescope.error.recoverable"] as? Bool == step.recoverable)
                    #expect(a["bridgescope.busy"] as? Bool == (step.errorCode == "BUSY"))
                    #expect(a["bridgescope.late"] as? Bool == step.findings.contains(.lateResponse))
                    #expect(a["bridgescope.unanswered"] as? Bool == (step.end == nil))
                    let status = span["status"] as! [String: Any]
                    #expect((status["code"] as? Int == 2) == (step.end == nil || step.outcome == "error" || step.outcome == "no-status"))
                }
            }
            // Every stored finding is a span event of its journey, at its time.
            let findingEvents = spans.filter { ($0["resource"] as? [String: Any])?["bridgescope.session.file"] as? String == session.report.source }
                .flatMap { ($0["events"] as! [[String: Any]]).filter { $0["name"] as? String == "finding" } }
            #expect(findingEvents.count == session.report.findings.count, "\(session.report.source)")
            for f in session.report.findings {
                #expect(findingEvents.contains {
                    let a = $0["attributes"] as! [String: Any]
                    return a["bridgescope.finding.rule"] as? String == f.rule.rawValue && a["bridgescope.finding.message"] as? String == f.message
                        && a["bridgescope.finding.severity"] as? String == f.severity.rawValue && a["bridgescope.finding.slug"] as? String == f.slug
                }, "\(session.report.source): \(f)")
            }
        }
    }

    @Test func aSecondExportGivesTheSameIDs() throws {
        let paths = Self.sessions.filter { $0.hasSuffix(".bsz") }
        let receiver = try OTLPReceiver()
        let first = try runBridgescope(["export"] + paths + ["--otlp", receiver.url])
        let second = try runBridgescope(["export"] + paths + ["--otlp", receiver.url])
        let (_, spans) = try receiver.stop()
        #expect(first.status == 0 && second.status == 0, "\(first.stderr)\(second.stderr)")
        let ids = spans.map { "\($0["traceId"]!)/\($0["spanId"]!)" }
        let half = ids.count / 2
        #expect(ids.count % 2 == 0 && half > 0)
        #expect(Array(ids[..<half]) == Array(ids[half...]))
        #expect(Set(ids[..<half]).count == half)
    }

    @Test func twoAnswers503ThenAcceptedDeliversEverythingOnce() throws {
        let paths = Self.sessions.filter { $0.hasSuffix(".bsz") }
        let receiver = try OTLPReceiver(["--fail", "2", "--fail-status", "503", "--retry-after", "1"])
        let started = Date()
        let r = try runBridgescope(["export"] + paths + ["--otlp", receiver.url])
        let elapsed = Date().timeIntervalSince(started)
        let (summary, spans) = try receiver.stop()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(spans.count == Self.spanCount(try Self.analyses(paths)))
        #expect(Set(spans.map { "\($0["traceId"]!)/\($0["spanId"]!)" }).count == spans.count)
        #expect(summary.contains("failed=2"), "\(summary)")
        #expect(r.stderr.contains("2 retries"), "\(r.stderr)")
        #expect(elapsed >= 2, "Retry-After: 1 honoured twice")
    }

    @Test func aReceiverThatNeverAnswersEndsTheExportWithinItsTimeout() throws {
        let receiver = try OTLPReceiver(["--hang"])
        let started = Date()
        let r = try runBridgescope(["export", ProjectPaths.root.appendingPathComponent("captures/happy-passport.bsz").path,
                                    "--otlp", receiver.url, "--otlp-timeout", "2"])
        let elapsed = Date().timeIntervalSince(started)
        _ = try receiver.stop()
        #expect(r.status == 2)
        #expect(r.stderr.contains("error: cannot export to \(receiver.url)/v1/traces: no answer within"), "\(r.stderr)")
        #expect(r.stderr.contains("not sent"), "\(r.stderr)")
        #expect(elapsed < 8, "\(elapsed) s")
    }

    @Test func aRefusingEndpointIsAClearErrorAndPartialSuccessIsCounted() throws {
        let closed = try OTLPReceiver()
        let url = closed.url
        _ = try closed.stop()
        let refused = try runBridgescope(["export", ProjectPaths.root.appendingPathComponent("captures/busy-storm.bsz").path,
                                          "--otlp", url, "--otlp-timeout", "1.5"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("connection refused"), "\(refused.stderr)")

        let receiver = try OTLPReceiver(["--reject", "2"])
        let r = try runBridgescope(["export", ProjectPaths.root.appendingPathComponent("captures/busy-storm.bsz").path, "--otlp", receiver.url])
        _ = try receiver.stop()
        #expect(r.status == 1)
        #expect(r.stderr.contains(", 2 rejected"), "\(r.stderr)")
        #expect(r.stderr.contains("otlp: the collector said: test receiver rejects 2 span(s) per request"), "\(r.stderr)")
    }

    @Test func analyzeSendsTheSessionsItAnalyses() throws {
        let paths = Self.sessions.filter { $0.hasSuffix(".bsz") }
        let receiver = try OTLPReceiver()
        let r = try runBridgescope(["analyze", "--format", "json", "-o", "/dev/null"] + paths + ["--otlp", receiver.url])
        let (_, spans) = try receiver.stop()
        #expect(r.status == 1, "nfc-never-answered has an error finding: \(r.stderr)")
        #expect(spans.count == Self.spanCount(try Self.analyses(paths)))
        #expect(spans.filter { $0["name"] as? String == "journey" }.allSatisfy {
            ($0["resource"] as? [String: Any])?["bridgescope.session.source"] is String
        })
    }
}
