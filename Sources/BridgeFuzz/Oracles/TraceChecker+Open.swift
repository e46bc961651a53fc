import BridgeHost
import BridgeJSON
import BridgeProtocol

/// The lenient reading of PROTOCOL.md §7 (``TraceChecker/strict`` false): requests whose
/// answer the protocol leaves to the host are tracked as open-ended, so no reasonable
/// answer to them is a finding; what is never open (one final response per request, no
/// crash, no hang, BUSY on a busy slot, UNSUPPORTED_ACTION for an unhandled action) is
/// still checked on every request whose meaning is fixed.
extension CheckState {
    /// Findings on a host's output that §7 leaves open.
    static let openOutputRules: Set<RuleID> = [.unknownField, RuleID(rawValue: "BRG023"), RuleID(rawValue: "BRG016")]

    /// Why the protocol leaves the answer to this message open, or nil when it is fixed
    /// (a valid request, or bytes that carry no request id). A fixed set of sentences:
    /// each is also a behaviour feature, so the corpus keeps one case of every kind.
    func openChoice(_ d: DecodeResult) -> String? {
        let rules = Set(d.findings.map(\.rule))
        if d.isValid, let e = d.envelope, e.type == .request {
            if rules.contains(.unknownField) { return "an unknown member: ignored or invalid (PROTOCOL.md §7)" }
            if e.version != "1.0" { return "version 1.x: accepted or VERSION_MISMATCH (PROTOCOL.md §7)" }
            return nil
        }
        if d.isValid { return nil }
        if rules.contains(.duplicateKey) { return "a duplicate key: first wins, last wins or invalid (PROTOCOL.md §7)" }
        if rules.contains(RuleID(rawValue: "BRG017")) { return "a timestamp beyond what this project accepts: accepted or invalid (PROTOCOL.md §7)" }
        if rules.contains(.unsupportedVersion) { return "another version: VERSION_MISMATCH (§1) or INVALID_REQUEST (§4)" }
        guard d.partial.type == .request || d.partial.correlationId != nil else { return nil }
        return "a malformed request: INVALID_REQUEST is this project's rule (PROTOCOL.md §4); another host may route it or stay silent"
    }

    /// Makes the open request `id` open-ended; a capture it made leaves its slot uncertain
    /// from then on (whatever the host did with the second message, a BUSY is justified).
    mutating func markOpenEnded(_ id: String) {
        guard let o = open[id] else { return }
        open[id]!.openEnded = true
        if let c = o.capture {
            let slot = captures[c].slot
            uncertainSlots[slot] = min(uncertainSlots[slot] ?? Int.max, captures[c].sentIndex)
        }
    }

    /// The values of every `"correlationId" : "…"` in `bytes` without escapes, found by a
    /// byte scan that needs no valid JSON around them.
    static func looseCorrelationIds(_ bytes: [UInt8]) -> [String] {
        let key = Array(#""correlationId""#.utf8)
        var out: [String] = []
        var i = 0
        while i + key.count < bytes.count {
            guard bytes[i] == 0x22, bytes[i..<(i + key.count)].elementsEqual(key) else { i += 1; continue }
            var j = i + key.count
            while j < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[j]) { j += 1 }
            guard j < bytes.count, bytes[j] == UInt8(ascii: ":") else { i = j; continue }
            j += 1
            while j < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[j]) { j += 1 }
            guard j < bytes.count, bytes[j] == 0x22 else { i = j; continue }
            let start = j + 1
            var end = start
            while end < bytes.count, bytes[end] != 0x22, bytes[end] != 0x5C, end - start < 4096 { end += 1 }
            if end < bytes.count, bytes[end] == 0x22, end > start { out.append(String(decoding: bytes[start..<end], as: UTF8.self)) }
            i = end
        }
        return out
    }

    /// Tracks an open-ended request under every `correlationId` it carries (duplicates
    /// included: a host may take the first or the last).
    mutating func sentOpenEnded(_ bytes: [UInt8], _ d: DecodeResult, reason: String, step: Int, at: Int64, index: Int,
                                _ features: inout FeatureSink) {
        features.add("open-ended", reason)
        var ids: [String] = []
        var actions: [String] = []
        if case .object(let o)? = try? JSONParser().parse(bytes).value {
            for m in o.members where m.key == "correlationId" {
                if case .string(let s) = m.value, !s.isEmpty, !ids.contains(s) { ids.append(s) }
            }
            for m in o.members where m.key == "payload" {
                if case .object(let p) = m.value {
                    for a in p.members where a.key == "action" { if case .string(let s) = a.value { actions.append(s) } }
                }
            }
        } else if let id = d.partial.correlationId, !id.isEmpty {
            ids = [id]
        }
        for a in actions {
            if let slot = SlotKind(action: Action(rawValue: a)), uncertainSlots[slot] == nil { uncertainSlots[slot] = index }
        }
        for id in ids {
            if open[id] != nil {
                markOpenEnded(id)
                maybe[id, default: 0] += 1
                continue
            }
            var o = TraceChecker.Open(step: step, action: actions.first ?? "invalid", sentAtMs: at, sentIndex: index,
                                      deadlineMs: 30_000, openCountAtSend: open.count)
            o.openEnded = true
            o.group = ids.filter { $0 != id }
            open[id] = o
        }
    }
}
