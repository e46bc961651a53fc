import BridgeJSON

/// Parses one archive line with the line limits (for the header check).
enum BridgeJSONLine {
    static func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        try JSONParser(limits: BridgeArchiveFormat.lineLimits).parse(bytes).value
    }
}
