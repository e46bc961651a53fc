import Crypto

/// Trace and span ids derived from the session, so exporting the same archive twice
/// gives the same ids and the backend keeps one copy (docs/OTLP.md, "Identifiers"):
///
/// - trace id: the first 16 bytes of SHA-256(`bridgescope-otlp-1|trace|` session
///   identity `|` connection id);
/// - root span id: the first 8 bytes of SHA-256(`bridgescope-otlp-1|journey|` trace id hex);
/// - request span id: the first 8 bytes of SHA-256(`bridgescope-otlp-1|request|` trace id
///   hex `|` the request's record number);
/// - continuation span id (a root's events past the per-span limit): the first 8 bytes
///   of SHA-256(`bridgescope-otlp-1|events|` trace id hex `|` part, 2 for the first).
///
/// An all-zero id (invalid in OTLP) has its last byte set to 1.
struct TraceIdentity {
    static let domain = "bridgescope-otlp-1|"

    static func traceID(session: String, connection: String) -> [UInt8] {
        digest("trace|\(session)|\(connection)", bytes: 16)
    }

    static func rootSpanID(trace: [UInt8]) -> [UInt8] {
        digest("journey|\(hex(trace))", bytes: 8)
    }

    static func requestSpanID(trace: [UInt8], record: Int) -> [UInt8] {
        requestSpanID(traceHex: hex(trace), record: record)
    }

    /// ``requestSpanID(trace:record:)`` with the trace id already in hex.
    static func requestSpanID(traceHex: String, record: Int) -> [UInt8] {
        digest("request|\(traceHex)|\(record)", bytes: 8)
    }

    /// The id of the root's continuation span number `part` (2, 3, ...): the first 8
    /// bytes of SHA-256(`bridgescope-otlp-1|events|` trace id hex `|` part).
    static func eventsSpanID(traceHex: String, part: Int) -> [UInt8] {
        digest("events|\(traceHex)|\(part)", bytes: 8)
    }

    static func digest(_ text: String, bytes: Int) -> [UInt8] {
        var id = Array(SHA256.hash(data: Array((domain + text).utf8)).prefix(bytes))
        if id.allSatisfy({ $0 == 0 }) { id[bytes - 1] = 1 }
        return id
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
