import BridgeJSON

/// Keeps host output from being evaluated as code: only a JSON text goes into
/// `receive(...)` as an object literal.
enum JSONSafety {
    struct NotJSON: Error {}

    /// Throws unless `bytes` are one JSON text (strict RFC 8259, the protocol's limits).
    static func check(_ bytes: [UInt8]) throws {
        do { _ = try JSONParser().parse(bytes) } catch { throw NotJSON() }
    }

    /// `bytes` (decoded as UTF-8, invalid sequences replaced) as a JSON string literal.
    static func stringLiteral(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.writeString(String(decoding: bytes, as: UTF8.self), into: &out)
        return out
    }
}
