import BridgeProtocol

/// The few spellings the model and the fuzzer's oracles share in their messages and
/// signatures, written once.
package enum ReportText {
    /// An id or action in quotes, clipped to 60 characters with its length in bytes.
    package static func quote(_ s: String) -> String {
        s.count > 60 ? "\"\(s.prefix(60))…\" (\(s.utf8.count) bytes)" : "\"\(s)\""
    }

    /// A message's first 200 bytes as text, with its length when clipped.
    package static func preview(_ bytes: [UInt8]) -> String {
        let s = String(decoding: bytes.prefix(200), as: UTF8.self)
        return bytes.count > 200 ? s + "… (\(bytes.count) bytes)" : s
    }

    /// A coarse, stable name for an action in finding signatures: the known actions and
    /// `invalid`, `custom` for a custom capability of the host's, else `other`.
    package static func actionClass(_ action: String, isCustom: (String) -> Bool) -> String {
        if known.contains(action) { return action }
        return isCustom(action) ? "custom" : "other"
    }

    static let known: Set<String> = [Action.capabilityQuery.rawValue, Action.documentCapture.rawValue,
                                     Action.selfieCapture.rawValue, Action.nfcRead.rawValue, "invalid"]
}
