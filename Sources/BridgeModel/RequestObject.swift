import BridgeJSON

/// A message the web side can wait for (PROTOCOL.md §7): a JSON object with
/// `"type":"request"` and a non-empty string `correlationId`, whatever else is wrong with
/// it. Such a message gets exactly one final response, so an observer waits for it.
package struct RequestObject: Sendable, Hashable {
    /// Every non-empty string `correlationId` it carries (duplicate keys: each of them; the
    /// answer may bear any).
    package var ids: [String]
    /// The first string `payload.action`, if any.
    package var action: String?

    /// The request object in `bytes`, or nil when they are not one (this project's JSON
    /// limits apply: deeper or larger is not judged as one).
    package init?(_ bytes: [UInt8], limits: JSONLimits = .default) {
        guard case .object(let o)? = try? JSONParser(limits: limits).parse(bytes).value else { return nil }
        guard o.members.contains(where: { $0.key == "type" && $0.value.stringValue == "request" }) else { return nil }
        var ids: [String] = []
        for m in o.members where m.key == "correlationId" {
            if let s = m.value.stringValue, !s.isEmpty, !ids.contains(s) { ids.append(s) }
        }
        guard !ids.isEmpty else { return nil }
        self.ids = ids
        if case .object(let p)? = o["payload"] { action = p.members.first { $0.key == "action" }?.value.stringValue }
    }
}
