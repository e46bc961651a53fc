import BridgeJSON

/// What pairs a message posted on one side of the bridge with its receipt on the other:
/// its `correlationId`, `type` and `payload.action`, as far as the message has them (a
/// message that is not a JSON object, or lacks them, pairs with one equally lacking, in
/// order). Each part is cut to the analyzer's identifier limit (256 bytes by default).
struct CrossingKey: Hashable, Sendable {
    var correlationId: String?
    var type: String?
    var action: String?

    /// The key of a parsed message (nil: not JSON).
    init(_ value: JSONValue?, clip: (String) -> String) {
        guard case .object(let o)? = value else { return }
        correlationId = o["correlationId"]?.stringValue.map(clip)
        type = o["type"]?.stringValue.map(clip)
        action = o["payload"]?["action"]?.stringValue.map(clip)
    }

    init(correlationId: String?, type: String?, action: String?) {
        self.correlationId = correlationId
        self.type = type
        self.action = action
    }

    /// `request camera.document.capture (id r1, record 5)`; `a message` for one with
    /// neither type nor action; `where` is added after the id (`record 5 on x@native`).
    func describe(at place: String) -> String {
        var words: [String] = []
        if let type { words.append(type) }
        if let action { words.append(action) }
        let what = words.isEmpty ? "a message" : words.joined(separator: " ")
        let id = correlationId.map { "id \($0), " } ?? ""
        return "\(what) (\(id)\(place))"
    }
}
