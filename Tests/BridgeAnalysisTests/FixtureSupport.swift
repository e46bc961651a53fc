import BridgeAnalysis
import BridgeJSON
import Foundation

/// Fixture sessions: tap logs under Tests/BridgeAnalysisTests/Fixtures whose first line
/// is a header `{"bridgescope":"fixture","expect":{slug: count},"note":...}` that the tap
/// reader skips and the tests read.
enum Fixtures {
    static let directory: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let goldenDirectory: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    /// Every fixture file name, sorted.
    static let names: [String] = {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return all.filter { $0.hasSuffix(".ndjson") }.sorted()
    }()

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The expected rule counts by slug, from the header line.
    static func expectation(_ name: String) throws -> [String: Int] {
        let text = try String(contentsOfFile: path(name), encoding: .utf8)
        let header = try JSONParser().parse(String(text.prefix { $0 != "\n" })).value
        var out: [String: Int] = [:]
        for m in header["expect"]?.objectValue?.members ?? [] {
            out[m.key] = Int(m.value.numberValue?.int64 ?? -1)
        }
        return out
    }

    /// Analyses a fixture (named by its file name, so reports are stable).
    static func analyze(_ name: String, configuration: AnalyzerConfiguration = AnalyzerConfiguration()) throws -> AnalysisReport {
        var source = try TapLogSource(path: path(name))
        return try SessionAnalyzer.analyze(&source, name: name, configuration: configuration)
    }

    /// Analyses tap-log text held in memory.
    static func analyze(text: String, configuration: AnalyzerConfiguration = AnalyzerConfiguration()) throws -> AnalysisReport {
        var source = TapLogSource(bytes: Array(text.utf8), name: "memory")
        return try SessionAnalyzer.analyze(&source, name: "memory", configuration: configuration)
    }
}

extension AnalysisReport {
    /// Rule counts by slug.
    var countsBySlug: [String: Int] {
        Dictionary(uniqueKeysWithValues: ruleCounts.map { ($0.slug, $0.count) })
    }
}

/// Builds tap-log lines for tests that need a session not worth a fixture file.
struct TapBuilder {
    static let t0: Int64 = 1_763_830_000_000
    var lines: [String] = []

    mutating func message(_ t: Int64, _ dir: String, _ type: String, _ id: String, _ action: String,
                          status: String? = nil, data: String? = nil, error: String? = nil, conn: String = "c1") {
        var payload = "\"action\":\"\(action)\""
        if let data { payload += ",\"data\":\(data)" }
        if let status { payload += ",\"status\":\"\(status)\"" }
        if let error { payload += ",\"error\":\(error)" }
        lines.append("{\"t\":\(Self.t0 + t),\"dir\":\"\(dir)\",\"conn\":\"\(conn)\",\"msg\":{\"version\":\"1.0\",\"correlationId\":\"\(id)\",\"type\":\"\(type)\",\"timestamp\":\(Self.t0 + t),\"payload\":{\(payload)}}}")
    }

    mutating func request(_ t: Int64, _ id: String, _ action: String, data: String? = nil, conn: String = "c1") {
        message(t, "w2h", "request", id, action, data: data, conn: conn)
    }

    mutating func response(_ t: Int64, _ id: String, _ action: String, _ status: String = "success",
                           data: String? = nil, error: String? = nil, conn: String = "c1") {
        message(t, "h2w", "response", id, action, status: status, data: data, error: error, conn: conn)
    }

    mutating func hostEvent(_ t: Int64, _ action: String, conn: String = "c1") {
        message(t, "h2w", "event", "ios-event-\(lines.count)", action, data: "{}", conn: conn)
    }

    mutating func webEvent(_ t: Int64, _ action: String, data: String = "{}", conn: String = "c1") {
        message(t, "w2h", "event", "web-\(lines.count)", action, data: data, conn: conn)
    }

    /// host.ready, then a capability.query answered with everything supported.
    mutating func start(conn: String = "c1") {
        hostEvent(0, "host.ready", conn: conn)
        request(10, "q-1", "capability.query", conn: conn)
        response(12, "q-1", "capability.query",
                 data: #"{"environment":"ios","hostVersion":"1.0","capabilities":{"camera.document":{"supported":true,"version":"1.0"},"camera.selfie":{"supported":true,"version":"1.0"},"nfc.read":{"supported":true,"version":"1.0"}}}"#,
                 conn: conn)
    }

    var text: String { lines.joined(separator: "\n") + "\n" }
}
