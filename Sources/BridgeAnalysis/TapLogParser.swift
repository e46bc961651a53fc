import BridgeArchive
import BridgeJSON
import BridgeProtocol
import Foundation

/// Reads one line of a tap log (JSON Lines) into an ``AnalysisEvent``.
///
/// The tap format, one JSON object per line:
/// - a message: `{"t": <time>, "dir": "w2h"|"h2w", "conn"?: string, "seq"?: int,
///   "msg": <the envelope>}`, or `"text": "<the message as a JSON string>"` instead of
///   `msg` for bytes that are not valid JSON, or `"b64": "<base64>"` for bytes that are
///   not UTF-8 (as in docs/FORMAT.md §9). `msg` is taken as the raw bytes of the
///   line between its value's first and last byte, never re-encoded.
/// - a capture event: `{"t": <time>, "event": "open"|"close"|"gap"|"drop"|"error",
///   "conn"?: string, "bytes"?: int, "count"?: int, "text"?: string}`.
/// - a header or trailer line with a `"bridgescope"` member, or an empty line: skipped.
///
/// `t` is Unix epoch time: below 10^15 it is milliseconds (fractions allowed), else
/// nanoseconds. `conn` defaults to `-`. A line that breaks these rules becomes a
/// capture `error` event naming the line, so the analysis goes on.
public struct TapLogParser: Sendable {
    /// Times below this are milliseconds; at or above, nanoseconds: the archive's tap
    /// import threshold (`BridgeArchive.TapLogParser.nanosecondThreshold`, 10^15), so a
    /// tap log means the same times to `record --tap` and to `analyze`.
    public static let nanosecondThreshold = Double(BridgeArchive.TapLogParser.nanosecondThreshold)

    /// The JSON limits for one line: 128 MiB, depth 66 (the envelope's 64 plus the tap
    /// object).
    public var limits = JSONLimits(maxInputBytes: 128 << 20, maxDepth: 66, maxStringBytes: 128 << 20)

    /// Creates a parser.
    public init() {}

    /// The event a line holds, nil for a skipped line. `previousTime` is used for the
    /// error event of a line whose time cannot be read.
    public func parse(_ line: ArraySlice<UInt8>, number: Int, previousTime: Int64) -> AnalysisEvent? {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return nil }
        func failure(_ text: String, time: Int64? = nil) -> AnalysisEvent {
            .captureEvent(seq: number, time: time ?? previousTime, connection: nil,
                          kind: .error("line \(number): \(text)"), record: number)
        }
        let doc: JSONDocument
        do throws(JSONError) {
            doc = try JSONParser(limits: limits).parse(bytes: line)
        } catch {
            return failure("not a tap record: \(error.reason) at byte \(error.offset)")
        }
        guard case .object(let o) = doc.value else { return failure("not a tap record: a JSON \(doc.value.kindName), not an object") }
        if o.member("bridgescope") != nil { return nil }
        guard let tm = o["t"], case .number(let n) = tm else { return failure("tap record has no numeric \"t\"") }
        let time: Int64
        if let i = n.int64 {
            guard i >= 0 else { return failure("\"t\" \(n.lexeme) is not a time") }
            if Double(i) < Self.nanosecondThreshold {
                let (ns, overflow) = i.multipliedReportingOverflow(by: 1_000_000)
                guard !overflow else { return failure("\"t\" \(n.lexeme) read as milliseconds is beyond the year 2262") }
                time = ns
            } else {
                time = i
            }
        } else if let exact = Self.fractionalMilliseconds(n.lexeme) {
            time = exact
        } else {
            let d = n.double
            guard d.isFinite, d >= 0, d < Self.nanosecondThreshold else { return failure("\"t\" \(n.lexeme) is not a time") }
            time = Int64(d * 1_000_000)
        }
        let seq = o["seq"]?.numberValue?.int64.map { Int($0) } ?? number
        let conn: String?
        switch o["conn"] {
        case nil, .null?: conn = nil
        case .string(let s)?: conn = s
        case .number(let x)?: conn = x.lexeme
        default: return failure("\"conn\" must be a string", time: time)
        }
        if let ev = o["event"] {
            guard case .string(let kind) = ev else { return failure("\"event\" must be a string", time: time) }
            let k: CaptureEventKind
            switch kind {
            case "open": k = .open
            case "close": k = .close
            case "gap": k = .gap(bytes: o["bytes"]?.numberValue?.int64 ?? 0)
            case "drop": k = .drop(count: o["count"]?.numberValue?.int64 ?? 0)
            case "error": k = .error(o["text"]?.stringValue ?? "capture error")
            default: return failure("unknown capture event \"\(kind.prefix(40))\"", time: time)
            }
            return .captureEvent(seq: seq, time: time, connection: conn, kind: k, record: number)
        }
        guard case .string(let dirText)? = o["dir"] else { return failure("message record has no \"dir\"", time: time) }
        let dir = Direction(rawValue: dirText)
        guard dir == .webToHost || dir == .hostToWeb else {
            return failure("\"dir\" is \"\(dirText.prefix(20))\", not w2h or h2w", time: time)
        }
        let bytes: [UInt8]
        if let mm = o.member("msg") {
            guard let range = Self.rawRange(of: mm, in: o, line: line) else { return failure("cannot slice \"msg\"", time: time) }
            bytes = Array(line[range])
        } else if case .string(let text)? = o["text"] {
            bytes = Array(text.utf8)
        } else if case .string(let b64)? = o["b64"] {
            guard let data = Data(base64Encoded: b64) else { return failure("\"b64\" is not base64", time: time) }
            bytes = Array(data)
        } else {
            return failure("message record has none of \"msg\", \"text\", \"b64\"", time: time)
        }
        return .message(seq: seq, time: time, direction: dir, connection: conn ?? "-", bytes: bytes[...], record: number)
    }

    /// `123.5` milliseconds as exact nanoseconds (digits past the sixth decimal are
    /// dropped); nil for negative, exponent or out-of-range lexemes.
    static func fractionalMilliseconds(_ lexeme: String) -> Int64? {
        let parts = lexeme.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let whole = Int64(parts[0]), whole >= 0, Double(whole) < nanosecondThreshold,
              parts[1].allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let frac = String(parts[1].prefix(6))
        let padded = frac + String(repeating: "0", count: 6 - frac.count)
        return whole * 1_000_000 + (Int64(padded) ?? 0)
    }

    /// The byte range of a member's value in the line: from its first byte to the byte
    /// before the separator that follows it (the next member's comma, or the closing brace).
    static func rawRange(of member: JSONObject.Member, in object: JSONObject, line: ArraySlice<UInt8>) -> Range<Int>? {
        let base = line.startIndex
        let start = base + member.valueOffset
        var end: Int
        if let i = object.members.firstIndex(where: { $0.keyOffset == member.keyOffset }), i + 1 < object.members.count {
            end = base + object.members[i + 1].keyOffset
            while end > start, line[end - 1] != UInt8(ascii: ",") { end -= 1 }
            end -= 1  // the comma
        } else {
            end = line.endIndex
            while end > start, line[end - 1] != UInt8(ascii: "}") { end -= 1 }
            end -= 1  // the closing brace
        }
        while end > start, [0x20, 0x09, 0x0A, 0x0D].contains(line[end - 1]) { end -= 1 }
        guard member.valueOffset >= 0, end > start else { return nil }
        return start..<end
    }
}
