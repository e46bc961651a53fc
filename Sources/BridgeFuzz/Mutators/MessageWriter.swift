import BridgeJSON

/// Serializes mutated trees, and builds fresh envelopes for the sequence mutators.
///
/// A Swift string cannot hold a lone surrogate, so the JSON-tree mutator plants a marker
/// scalar (U+10FFFD for a high half, U+10FFFC for a low half, both private use) and the
/// writer turns its UTF-8 into the escape `\ud800` / `\udc00`.
enum MessageWriter {
    static let loneHighMarker: Unicode.Scalar = "\u{10FFFD}"
    static let loneLowMarker: Unicode.Scalar = "\u{10FFFC}"

    /// Relaxed limits for parsing a message to mutate it (deeper than the host allows, so
    /// the nesting mutations, up to 1,000 levels, can go on from an already deep message).
    /// Not deeper: destroying a parsed value is recursive in the Swift runtime (about 210
    /// bytes of stack a level), and the fuzzer runs on the concurrency pool's threads.
    static let mutationLimits = JSONLimits(maxDepth: 1024)

    static func write(_ value: JSONValue) -> [UInt8] {
        var out = JSONWriter().bytes(value)
        guard out.count >= 4 else { return out }
        var i = 0
        var hasMarker = false
        while i + 3 < out.count {
            if out[i] == 0xF4 && out[i + 1] == 0x8F && out[i + 2] == 0xBF && (out[i + 3] == 0xBD || out[i + 3] == 0xBC) {
                hasMarker = true
                break
            }
            i += 1
        }
        guard hasMarker else { return out }
        var fixed: [UInt8] = []
        fixed.reserveCapacity(out.count + 8)
        i = 0
        while i < out.count {
            if i + 3 < out.count && out[i] == 0xF4 && out[i + 1] == 0x8F && out[i + 2] == 0xBF
                && (out[i + 3] == 0xBD || out[i + 3] == 0xBC) {
                fixed.append(contentsOf: (out[i + 3] == 0xBD ? "\\ud800" : "\\udc00").utf8)
                i += 4
            } else {
                fixed.append(out[i])
                i += 1
            }
        }
        out = fixed
        return out
    }

    static func parse(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONParser(limits: mutationLimits).parse(bytes).value
    }

    /// A well-formed web-to-host envelope.
    static func envelope(id: String, type: String, action: String, data: JSONValue? = nil,
                         timestamp: Int64 = 1_700_000_000_000) -> [UInt8] {
        var payload: [JSONObject.Member] = [.init(key: "action", value: .string(action))]
        if let data { payload.append(.init(key: "data", value: data)) }
        return JSONWriter().bytes(.object(JSONObject([
            .init(key: "version", value: "1.0"),
            .init(key: "correlationId", value: .string(id)),
            .init(key: "type", value: .string(type)),
            .init(key: "timestamp", value: .integer(timestamp)),
            .init(key: "payload", value: .object(JSONObject(payload))),
        ])))
    }

    /// The `correlationId` of a message when it is a JSON object holding a string id.
    static func correlationId(_ bytes: [UInt8]) -> String? {
        guard let v = try? JSONParser().parse(bytes).value else { return nil }
        return v["correlationId"]?.stringValue
    }
}
