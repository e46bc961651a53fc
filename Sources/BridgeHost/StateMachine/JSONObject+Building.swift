import BridgeJSON

extension JSONObject {
    /// An object from key-value pairs, in order (JSONObject has no dictionary literal).
    static func make(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONObject {
        JSONObject(pairs.map { JSONObject.Member(key: $0.key, value: $0.value) })
    }
}
