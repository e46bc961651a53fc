import BridgeArchive
import BridgeJSON
import Foundation

/// Seeds from recorded traffic (`--seed-archive FILE`): the web-to-host messages of a
/// session, in order, with the recorded gaps as delays (capped at one minute).
///
/// Reads JSON Lines in any of these shapes, line by line:
/// - tap log or archive records: `{"t": …, "dir": "w2h"|"h2w", "conn"?: …, "msg"|"text"|"b64": …}`
///   (`t` in ms, or in ns when ≥ 10^15); only `w2h` records are kept, one case per `conn`;
/// - plain envelopes (`captures/*.jsonl`): requests and web events are kept, responses
///   and host events (`ios-event-…`) dropped; delays from `timestamp`;
/// - anything else that is not a header or event line is kept as a raw message.
///
/// Session archives (`*.bsz`) go through ``loadSessionArchive(_:)``.
public enum SeedArchive {
    /// Longest delay taken from a recording.
    static let maxDelayMs: Int64 = 60_000

    /// Loads the seeds in `path` (`*.bsz` or JSON Lines).
    public static func load(_ path: String) throws -> [FuzzInput] {
        if path.hasSuffix(".bsz") { return try loadSessionArchive(path) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FuzzError(.io, "cannot read the seed archive \(path)")
        }
        guard data.count <= FuzzLimits.maxCaseFileBytes * 4 else {
            throw FuzzError(.io, "\(path) is \(data.count) bytes, over the seed archive limit of \(FuzzLimits.maxCaseFileBytes * 4)")
        }
        return parseLines([UInt8](data))
    }

    /// Session archives (`*.bsz`, docs/FORMAT.md), read with BridgeArchive's reader: each
    /// connection's `w2h` payloads (exact bytes) with their capture times. A damaged or
    /// truncated archive gives what could be read.
    static func loadSessionArchive(_ path: String) throws -> [FuzzInput] {
        let reader: ArchiveReader
        do { reader = try ArchiveReader(path: path) } catch { throw FuzzError(.io, "\(path): \(error)") }
        var records: [(connection: String, timeMs: Int64?, bytes: [UInt8])] = []
        while let item = reader.next() {
            if case .record(let r) = item, r.direction == .webToHost {
                records.append((r.connection, r.time / 1_000_000, r.payload))
            }
        }
        return cases(from: records)
    }

    /// Builds one case per connection from (connection, time in ms, bytes) records in order.
    public static func cases(from records: [(connection: String, timeMs: Int64?, bytes: [UInt8])]) -> [FuzzInput] {
        var order: [String] = []
        var steps: [String: [FuzzStep]] = [:]
        var last: [String: Int64] = [:]
        for r in records {
            if steps[r.connection] == nil { order.append(r.connection); steps[r.connection] = [] }
            var delay: Int64 = 0
            if let t = r.timeMs {
                if let prev = last[r.connection] { delay = min(max(0, t - prev), maxDelayMs) }
                last[r.connection] = t
            }
            if steps[r.connection]!.count < FuzzLimits.maxSteps {
                steps[r.connection]!.append(FuzzStep(delayMs: delay, message: r.bytes))
            }
        }
        return order.map { FuzzInput(steps[$0]!) }.filter { !$0.steps.isEmpty }
    }

    static func parseLines(_ bytes: [UInt8]) -> [FuzzInput] {
        var records: [(connection: String, timeMs: Int64?, bytes: [UInt8])] = []
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            var lineEnd = end
            if lineEnd > start && bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            let line = Array(bytes[start..<lineEnd])
            start = end + 1
            guard !line.isEmpty else { continue }
            if let r = record(line) { records.append(r) }
        }
        return cases(from: records)
    }

    static func record(_ line: [UInt8]) -> (connection: String, timeMs: Int64?, bytes: [UInt8])? {
        guard let o = (try? FuzzCase.parseJSONLine(line))?.objectValue else {
            return ("", nil, line)  // not JSON: a raw message worth sending
        }
        if o["bridgescope"] != nil { return nil }  // archive or case header
        if let dir = o["dir"]?.stringValue {
            guard dir == "w2h", let payload = recordPayload(o, line: line) else { return nil }
            var t = o["t"]?.numberValue?.int64
            if let v = t, v >= 1_000_000_000_000_000 { t = v / 1_000_000 }
            let conn = o["conn"]?.stringValue ?? o["conn"].map { JSONWriter().string($0) } ?? ""
            return (conn, t, payload)
        }
        if o["seq"] != nil || o["event"] != nil { return nil }  // archive event and trailer lines
        if let type = o["type"]?.stringValue {
            if type == "response" { return nil }
            if let id = o["correlationId"]?.stringValue, type == "event",
               id.hasPrefix("ios-event-") || id.hasPrefix("android-event-") || id.hasPrefix("web-event-") { return nil }
        }
        return ("", o["timestamp"]?.numberValue?.int64, line)
    }

    static func recordPayload(_ o: JSONObject, line: [UInt8]) -> [UInt8]? {
        if let m = o.member("msg") {
            if o.members.last?.key == "msg", m.valueOffset >= 0 {
                var end = line.count
                while end > m.valueOffset && line[end - 1] != UInt8(ascii: "}") { end -= 1 }
                var last = end - 1
                while last > m.valueOffset, [0x20, 0x09].contains(line[last - 1]) { last -= 1 }
                return Array(line[m.valueOffset..<last])
            }
            return JSONWriter().bytes(m.value)
        }
        if let t = o["text"]?.stringValue { return Array(t.utf8) }
        if let b = o["b64"]?.stringValue { return Base64.decode(b) }
        return nil
    }
}

extension FuzzCase {
    static func parseJSONLine(_ line: [UInt8]) throws -> JSONValue {
        try JSONParser(limits: lineLimits).parse(line).value
    }
}
