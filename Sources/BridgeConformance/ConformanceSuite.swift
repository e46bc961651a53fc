/// The conformance suite: numbered cases, one or more per obligation of PROTOCOL.md
/// §1–§4 and §7, numbered by section (docs/CONFORMANCE.md lists them; a test keeps the
/// list and the document in step). Every case is a fixed exchange: the same bytes, in the
/// same order, on every run.
public enum ConformanceSuite {
    static let ts = "1700000000000"

    static func request(_ id: String, _ action: String, data: String? = nil, version: String = "1.0", extra: String = "") -> String {
        let d = data.map { #","data":\#($0)"# } ?? ""
        return #"{"version":"\#(version)","correlationId":"\#(id)","type":"request","timestamp":\#(ts),"payload":{"action":"\#(action)"\#(d)}\#(extra)}"#
    }

    static func event(_ id: String, _ action: String, data: String = "{}") -> String {
        #"{"version":"1.0","correlationId":"\#(id)","type":"event","timestamp":\#(ts),"payload":{"action":"\#(action)","data":\#(data)}}"#
    }

    /// Every case, in order.
    public static let cases: [ConformanceCase] = envelope + lifecycle + capabilities + malformed + limits

    /// The cases `patterns` select (all when empty), in suite order.
    public static func select(_ patterns: [String]) -> [ConformanceCase] {
        patterns.isEmpty ? cases : cases.filter { c in patterns.contains { c.matches($0) } }
    }

    static let envelope: [ConformanceCase] = [
        .init("1.1", "§1", "a well-formed request", "nfc.read is answered once, with its id and action", [request("c1-1", "nfc.read")]),
        .init("1.2", "§1, §7", "version 1.x", "accepted, or answered VERSION_MISMATCH", [request("c1-2", "nfc.read", version: "1.1")]),
        .init("1.3", "§1, §4", "another major version", "answered error VERSION_MISMATCH or INVALID_REQUEST", [request("c1-3", "nfc.read", version: "2.0")]),
        .init("1.4", "§1, §7", "an unknown member", "ignored, or the message is invalid", [request("c1-4", "nfc.read", extra: #","extra":true"#)]),
        .init("1.5", "§1, §7", "data given as null", "taken as absent, or the message is invalid", [request("c1-5", "nfc.read", data: "null")]),
        .init("1.6", "§1, §4", "status on a request", "answered error INVALID_REQUEST (or routed)",
              [#"{"version":"1.0","correlationId":"c1-6","type":"request","timestamp":\#(ts),"payload":{"action":"nfc.read","status":"success"}}"#]),
        .init("1.7", "§1, §7", "duplicate keys", "first wins, last wins, or invalid; answered once",
              [#"{"version":"1.0","correlationId":"c1-7a","correlationId":"c1-7b","type":"request","timestamp":\#(ts),"payload":{"action":"nfc.read"}}"#]),
        .init("1.8", "§1, §7", "a timestamp beyond 2^63", "accepted, or answered INVALID_REQUEST",
              [#"{"version":"1.0","correlationId":"c1-8","type":"request","timestamp":9223372036854775808,"payload":{"action":"nfc.read"}}"#]),
        .init("1.9", "§1", "a timestamp in seconds", "accepted (a warning only)",
              [#"{"version":"1.0","correlationId":"c1-9","type":"request","timestamp":1700000000,"payload":{"action":"nfc.read"}}"#]),
        .init("1.10", "§1, §4", "a response from the web side", "not answered (wrong direction)",
              [#"{"version":"1.0","correlationId":"c1-10","type":"response","timestamp":\#(ts),"payload":{"action":"nfc.read","status":"success"}}"#]),
        .init("1.11", "§1, §3", "events from the web side", "not answered", [event("c1-11a", "journey.started"), event("c1-11b", "journey.progress", data: #"{"step":"document"}"#)]),
    ]

    static let lifecycle: [ConformanceCase] = [
        .init("2.1", "§2, §3", "a document capture", "one final response with its action", [request("c2-1", "camera.document.capture", data: #"{"documentType":"passport","side":"front"}"#)]),
        .init("2.2", "§2, §3", "a selfie capture", "one final response with its action", [request("c2-2", "camera.selfie.capture")]),
        .init("2.3", "§2", "two document captures at once", "the second is answered BUSY, or the host serves one message at a time",
              [request("c2-3a", "camera.document.capture", data: #"{"side":"front"}"#), request("c2-3b", "camera.document.capture", data: #"{"side":"back"}"#)]),
        .init("2.4", "§2", "two selfie captures at once", "the second is answered BUSY, or served after the first",
              [request("c2-4a", "camera.selfie.capture"), request("c2-4b", "camera.selfie.capture")]),
        .init("2.5", "§2, §7", "captures on two slots at once", "both served, in any order",
              [request("c2-5a", "camera.document.capture", data: #"{"side":"front"}"#), request("c2-5b", "camera.selfie.capture")]),
        .init("2.6", "§2", "a capture after a capture ended", "served, not BUSY", gapMs: 1500,
              [request("c2-6a", "camera.document.capture", data: #"{"side":"front"}"#), request("c2-6b", "camera.document.capture", data: #"{"side":"back"}"#)]),
        .init("2.7", "§2", "an action nobody handles", "one final response (the reference host: unsupported UNSUPPORTED_ACTION)", [request("c2-7", "vendor.unknown.action")]),
        .init("2.8", "§2, §7", "an id reused while open", "the first is answered; the second ignored, rejected or served",
              [request("c2-8", "nfc.read"), request("c2-8", "nfc.read")]),
        .init("2.9", "§2, §7", "an id reused after its answer", "handled as new, or rejected INVALID_REQUEST", gapMs: 1500,
              [request("c2-9", "capability.query"), request("c2-9", "capability.query")]),
        .init("2.10", "§2", "many requests in flight", "every one answered once",
              (0..<60).map { request("c2-10-\($0)", $0 % 3 == 0 ? "capability.query" : "nfc.read") }),
        .init("2.11", "§2", "a capture then a query", "the query is answered whether or not the capture still runs",
              [request("c2-11a", "camera.document.capture", data: #"{"side":"front"}"#), request("c2-11b", "capability.query")]),
        .init("2.12", "§2", "six document captures at once", "at most one served at a time: the others BUSY, or served in the order sent",
              (0..<6).map { request("c2-12-\($0)", "camera.document.capture", data: #"{"side":"front"}"#) }),
        .init("2.13", "§2", "six selfie captures at once", "at most one served at a time: the others BUSY, or served in the order sent",
              (0..<6).map { request("c2-13-\($0)", "camera.selfie.capture") }),
    ]

    static let capabilities: [ConformanceCase] = [
        .init("3.1", "§3", "capability.query", "success with environment, hostVersion and capabilities of §3's shape", [request("c3-1", "capability.query")]),
        .init("3.2", "§3", "capability.query with data", "the same answer; data ignored", [request("c3-2", "capability.query", data: #"{"verbose":true}"#)]),
        .init("3.3", "§3", "nfc.read", "one final response with its action", [request("c3-3", "nfc.read")]),
        .init("3.4", "§3", "a query, then every capture", "each answered once with its action", gapMs: 300,
              [request("c3-4a", "capability.query"), request("c3-4b", "camera.document.capture", data: #"{"side":"single"}"#),
               request("c3-4c", "camera.selfie.capture"), request("c3-4d", "nfc.read")]),
    ]

    static let malformed: [ConformanceCase] = [
        .init("4.1", "§4", "bytes that are not JSON", "not answered", bytes: [Array("not json".utf8), Array("{\"correlationId\":\"c4-1\"".utf8)]),
        .init("4.2", "§4", "JSON that is not an object", "not answered", [#"["request"]"#, "42", "null"]),
        .init("4.3", "§4", "an object without correlationId", "not answered", [#"{"version":"1.0","type":"request","timestamp":\#(ts),"payload":{"action":"nfc.read"}}"#]),
        .init("4.4", "§4", "an empty correlationId", "not answered", [request("", "nfc.read")]),
        .init("4.5", "§4", "a request without timestamp", "answered INVALID_REQUEST, or routed",
              [#"{"version":"1.0","correlationId":"c4-5","type":"request","payload":{"action":"nfc.read"}}"#]),
        .init("4.6", "§4", "a request without payload", "answered INVALID_REQUEST with action invalid",
              [#"{"version":"1.0","correlationId":"c4-6","type":"request","timestamp":\#(ts)}"#]),
        .init("4.7", "§4", "a non-ASCII action", "answered once (INVALID_REQUEST, or routed)", [request("c4-7", "caméra.document.capture"), request("c4-7b", "\u{0441}amera.selfie.capture")]),
        .init("4.8", "§4", "invalid UTF-8", "not answered", bytes: [Array(#"{"version":"1.0","correlationId":"c4-8","type":"request","timestamp":1,"payload":{"action":"nfc.read","data":{"x":""#.utf8) + [0xFF, 0xFE] + Array(#""}}}"#.utf8)]),
        .init("4.9", "§4", "data that is not an object", "answered INVALID_REQUEST, or routed", [request("c4-9", "nfc.read", data: "[1,2]")]),
        .init("4.10", "§3, §7", "capture data of the wrong types", "answered once each (any status), no crash",
              [request("c4-10a", "camera.document.capture", data: #"{"side":42}"#), request("c4-10b", "camera.selfie.capture", data: #"{"side":{"x":[]}}"#),
               request("c4-10c", "camera.document.capture", data: #"{"documentType":null,"side":["front"]}"#)]),
    ]

    static let limits: [ConformanceCase] = [
        .init("7.1", "§6, §7", "hostile strings in ids and data", "each answered with its id, byte for byte",
              [request("c7-1-\\u202Ekcatta", "nfc.read"), request("c7-1-😀", "nfc.read"), request("c7-1-\\u0000", "nfc.read", data: #"{"note":"\u2028\u2029"}"#)]),
        .init("7.2", "§6", "data nested 40 deep", "answered once", [request("c7-2", "nfc.read", data: "{\"d\":" + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}")]),
        .init("7.3", "§6, §7", "data nested 100 deep", "not answered, or answered once (the host's depth limit)", kind: .informational,
              [request("c7-3", "nfc.read", data: "{\"d\":" + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}")]),
        .init("7.4", "§6", "a 1 MiB string in data", "answered once", [request("c7-4", "nfc.read", data: #"{"blob":""# + String(repeating: "A", count: 1 << 20) + #""}"#)]),
        .init("7.5", "§6, §7", "2,000 members in data", "answered once", [request("c7-5", "nfc.read", data: "{" + (0..<2000).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}")]),
        .init("7.6", "§7", "numbers at the edges", "answered once each", [request("c7-6a", "nfc.read", data: #"{"n":9007199254740993}"#),
                                                                          request("c7-6b", "nfc.read", data: #"{"n":1e309}"#),
                                                                          request("c7-6c", "nfc.read", data: #"{"n":-0.0}"#)]),
    ]
}
