import BridgeAnalysis
import Foundation

/// Builds tap logs of two-sided recordings (docs/FORMAT.md §4): every message on
/// `<base>@web` as the page's tap writes it, and on `<base>@native` as the Swift tap
/// writes it (JSONSerialization, sorted keys: another member order, the same JSON value).
/// The receiving side records 1 ms after the sending side unless told otherwise.
struct TwoSidedSession {
    static let t0: Int64 = 1_763_830_000_000
    var base = "v1"
    var lines: [String] = []
    /// Milliseconds after ``t0`` of the next message.
    var now: Int64 = 0

    /// Tap line numbers are record numbers; the header line a fixture would have is not
    /// written, so the first line is record 1.
    var nextRecord: Int { lines.count + 1 }

    /// The envelope in the page's member order.
    static func webEnvelope(_ type: String, _ id: String, _ action: String, data: String, status: String?, ts: Int64) -> String {
        let s = status.map { #","status":"\#($0)""# } ?? ""
        return #"{"version":"1.0","correlationId":"\#(id)","type":"\#(type)","timestamp":\#(ts),"payload":{"action":"\#(action)","data":\#(data)\#(s)}}"#
    }

    /// The same envelope with sorted keys (`data` as given: sort it yourself if needed).
    static func nativeEnvelope(_ type: String, _ id: String, _ action: String, data: String, status: String?, ts: Int64) -> String {
        let s = status.map { #","status":"\#($0)""# } ?? ""
        return #"{"correlationId":"\#(id)","payload":{"action":"\#(action)","data":\#(data)\#(s)},"timestamp":\#(ts),"type":"\#(type)","version":"1.0"}"#
    }

    /// One tap line.
    mutating func line(_ side: String, _ dir: String, _ msg: String, at t: Int64, crossing: String? = nil) {
        let c = crossing.map { #","crossing":\#($0)"# } ?? ""
        lines.append(#"{"t":\#(Self.t0 + t),"dir":"\#(dir)","conn":"\#(base)@\#(side)","msg":\#(msg)\#(c)}"#)
    }

    /// A message of `dir` from its sender, then its receipt (`receiver: false`: never
    /// received; `receiverFirst`: the receipt's line comes first). `receivedData` is the
    /// data the receiver recorded (default: the same). Returns the sender's and the
    /// receiver's record numbers.
    @discardableResult
    mutating func send(_ dir: String, _ type: String, _ id: String, _ action: String, data: String = "{}",
                       status: String? = nil, receivedData: String? = nil, crossing: String? = nil,
                       sender: Bool = true, receiver: Bool = true, receiverFirst: Bool = false) -> (sent: Int?, received: Int?) {
        now += 10
        let ts = Self.t0 + now
        let fromWeb = dir == "w2h"
        func web(_ d: String) -> String { Self.webEnvelope(type, id, action, data: d, status: status, ts: ts) }
        func native(_ d: String) -> String { Self.nativeEnvelope(type, id, action, data: d, status: status, ts: ts) }
        let sent = fromWeb ? web(data) : native(data)
        let got = fromWeb ? native(receivedData ?? data) : web(receivedData ?? data)
        var records: (sent: Int?, received: Int?) = (nil, nil)
        func writeSent() {
            guard sender else { return }
            records.sent = nextRecord
            line(fromWeb ? "web" : "native", dir, sent, at: now, crossing: crossing)
        }
        func writeReceived() {
            guard receiver else { return }
            records.received = nextRecord
            line(fromWeb ? "native" : "web", dir, got, at: now + 1)
        }
        if receiverFirst {
            writeReceived()
            writeSent()
        } else {
            writeSent()
            writeReceived()
        }
        return records
    }

    /// host.ready, crossing both ways.
    mutating func hostReady() {
        send("h2w", "event", "ios-event-1", "host.ready", data: #"{"hostVersion":"1.0"}"#)
    }

    /// A request and its success answer, both crossing.
    mutating func exchange(_ id: String, _ action: String, data: String = "{}", answer: String = "{}") {
        send("w2h", "request", id, action, data: data)
        now += 20
        send("h2w", "response", id, action, data: answer, status: "success")
    }

    /// host.ready, a query, front and back of an id card, journey.complete: no findings.
    mutating func happyJourney() {
        hostReady()
        exchange("q-1", "capability.query",
                 answer: #"{"capabilities":{"camera.document":{"permissionState":"granted","supported":true,"version":"1.0"}},"environment":"ios","hostVersion":"1.0"}"#)
        exchange("d-1", "camera.document.capture", data: #"{"documentType":"idCard","side":"front"}"#,
                 answer: #"{"height":400,"imageData":"iVBORw0KGgo=","mimeType":"image/png","width":640}"#)
        exchange("d-2", "camera.document.capture", data: #"{"documentType":"idCard","side":"back"}"#,
                 answer: #"{"height":400,"imageData":"iVBORw0KGgo=","mimeType":"image/png","width":640}"#)
        send("w2h", "event", "web-9", "journey.complete", data: #"{"status":"passed"}"#)
    }

    /// Only the web side's lines, on connection `conn` (what a one-sided recording of the
    /// same journey holds).
    func webSideOnly(as conn: String) -> String {
        lines.filter { $0.contains(#""conn":"\#(base)@web""#) }
            .map { $0.replacingOccurrences(of: #""conn":"\#(base)@web""#, with: #""conn":"\#(conn)""#) }
            .joined(separator: "\n") + "\n"
    }

    var text: String { lines.joined(separator: "\n") + "\n" }

    /// The report of the session.
    func analyze(configuration: AnalyzerConfiguration = AnalyzerConfiguration()) throws -> AnalysisReport {
        try Fixtures.analyze(text: text, configuration: configuration)
    }
}

extension AnalysisReport {
    /// The stored findings of one rule.
    func findings(_ slug: String) -> [ReportFinding] { findings.filter { $0.slug == slug } }

    /// Rule counts of the crossing rules only.
    var crossingCounts: [String: Int] { countsBySlug.filter { $0.key.hasPrefix("bridge-") } }
}
