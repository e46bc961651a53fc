import BridgeArchive
import BridgeJSON

/// A fuzz case as stored on disk (`corpus/seeds/*.jsonl`, `corpus/regressions/*.jsonl`):
/// an optional header line and one line per step. docs/FUZZING.md §"Case files" is the
/// spec; in short:
///
/// - header: a JSON object with `"bridgescope": "fuzz-case"` and optional `oracle`,
///   `signature`, `message`, `reproduce`, `scenario` (an inline scenario object,
///   docs/SCENARIOS.md), `target`, `seed`;
/// - step: a JSON object whose members are only `delayMs` and one of `msg` (the message,
///   raw JSON, written last so its bytes are kept exactly), `text` (the message as a JSON
///   string), `b64` (base64 bytes) or `toggle` (a ``ScenarioToggle``);
/// - any other non-empty line is itself one message, sent with no delay (so a plain
///   JSON Lines file of envelopes is a valid case).
public struct FuzzCase: Sendable, Hashable {
    /// Header fields (`bridgescope` itself excluded), in file order.
    public var header: JSONObject?
    /// The steps.
    public var input: FuzzInput

    /// Creates a case.
    public init(header: JSONObject? = nil, input: FuzzInput) {
        self.header = header
        self.input = input
    }

    /// The header's inline scenario, if any.
    var scenarioJSON: JSONValue? {
        guard let s = header?["scenario"], !s.isNull else { return nil }
        return s
    }

    /// The header's oracle, if any.
    public var oracle: Oracle? { header?["oracle"]?.stringValue.map(Oracle.init(rawValue:)) }

    /// The header's signature, if any.
    public var signature: String? { header?["signature"]?.stringValue }

    static let lineLimits = JSONLimits(maxInputBytes: FuzzLimits.maxCaseFileBytes, maxDepth: 1025,
                                       maxStringBytes: FuzzLimits.maxCaseFileBytes)
    static let msgLimits = JSONLimits(maxInputBytes: FuzzLimits.maxCaseFileBytes, maxDepth: 1024,
                                      maxStringBytes: FuzzLimits.maxCaseFileBytes)
    static let stepKeys: Set<String> = ["delayMs", "msg", "text", "b64", "toggle"]

    /// Parses a case file. Never fails: a line that is not a step or header is a message.
    public static func parse(_ bytes: [UInt8]) -> FuzzCase {
        var header: JSONObject?
        var steps: [FuzzStep] = []
        var start = 0
        bytes.withUnsafeBytes { all in
            while start <= all.count {
                var end = start
                while end < all.count && all[end] != 0x0A { end += 1 }
                var lineEnd = end
                if lineEnd > start && all[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                let line = UnsafeRawBufferPointer(rebasing: all[start..<lineEnd])
                if !line.isEmpty {
                    if steps.count >= FuzzLimits.maxSteps { break }
                    switch parseLine(line) {
                    case .header(let h): header = h
                    case .step(let s): steps.append(s)
                    }
                }
                start = end + 1
            }
        }
        return FuzzCase(header: header, input: FuzzInput(steps))
    }

    enum Line {
        case header(JSONObject)
        case step(FuzzStep)
    }

    static func parseLine(_ line: UnsafeRawBufferPointer) -> Line {
        let raw = FuzzStep(message: Array(line))
        guard line.first == UInt8(ascii: "{"), let doc = try? JSONParser(limits: lineLimits).parse(line),
              case .object(let o) = doc.value else { return .step(raw) }
        if o["bridgescope"]?.stringValue == "fuzz-case" {
            return .header(JSONObject(o.members.filter { $0.key != "bridgescope" }))
        }
        guard !o.members.isEmpty, o.members.allSatisfy({ stepKeys.contains($0.key) }),
              Set(o.keys).count == o.count else { return .step(raw) }
        var delay: Int64 = 0
        if let d = o["delayMs"] {
            guard let v = d.numberValue?.int64 else { return .step(raw) }
            delay = v
        }
        let kinds = o.members.filter { $0.key != "delayMs" }
        guard kinds.count == 1, let m = kinds.first else { return .step(raw) }
        switch (m.key, m.value) {
        case ("toggle", .string(let t)):
            return .step(FuzzStep(delayMs: delay, .toggle(ScenarioToggle(rawValue: t))))
        case ("text", .string(let t)):
            return .step(FuzzStep(delayMs: delay, message: Array(t.utf8)))
        case ("b64", .string(let t)):
            guard let bytes = Base64.decode(t) else { return .step(raw) }
            return .step(FuzzStep(delayMs: delay, message: bytes))
        case ("msg", _):
            // The raw bytes of the last member's value: from its offset to the closing brace.
            if o.members.last?.key == "msg", m.valueOffset >= 0 {
                var end = line.count - 1
                while end > m.valueOffset && line[end] != UInt8(ascii: "}") { end -= 1 }
                var last = end
                while last > m.valueOffset, [0x20, 0x09, 0x0A, 0x0D].contains(line[last - 1]) { last -= 1 }
                return .step(FuzzStep(delayMs: delay, message: Array(line[m.valueOffset..<last])))
            }
            return .step(FuzzStep(delayMs: delay, message: JSONWriter().bytes(m.value)))
        default:
            return .step(raw)
        }
    }

    /// The case file's bytes: the header line (when there is a header), then one line per step.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        if let header {
            let h = JSONObject([.init(key: "bridgescope", value: "fuzz-case")] + header.members)
            out += JSONWriter().bytes(.object(h))
            out.append(0x0A)
        }
        for step in input.steps {
            out += Self.line(for: step)
            out.append(0x0A)
        }
        return out
    }

    /// One step's line.
    public static func line(for step: FuzzStep) -> [UInt8] {
        var out: [UInt8] = Array("{".utf8)
        if step.delayMs != 0 { out += Array("\"delayMs\":\(step.delayMs),".utf8) }
        switch step.kind {
        case .toggle(let t):
            out += Array("\"toggle\":".utf8)
            JSONWriter.writeString(t.rawValue, into: &out)
        case .message(let m):
            // Raw only when the bytes come back exactly: valid JSON, no newline, no
            // surrounding whitespace (the reader slices the value).
            if let first = m.first, let last = m.last, ![0x20, 0x09].contains(first), ![0x20, 0x09].contains(last),
               !m.contains(0x0A), !m.contains(0x0D), (try? JSONParser(limits: msgLimits).parse(m)) != nil {
                out += Array("\"msg\":".utf8) + m
            } else if let text = String(validating: m, as: UTF8.self) {
                out += Array("\"text\":".utf8)
                JSONWriter.writeString(text, into: &out)
            } else {
                out += Array("\"b64\":\"\(Base64.encode(m))\"".utf8)
            }
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
