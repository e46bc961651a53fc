import BridgeHost
import BridgeJSON
import BridgeProtocol

/// The ways a host may have read one message the web side sent (PROTOCOL.md §4 and §7),
/// the reference host's first. Pure: bytes in, readings out. Reuse of an id in use is
/// not decided here (it depends on what is open) but in ``ExplanationSearch``.
struct MessageReadings: Sendable {
    let decoder: EnvelopeDecoder
    let strict: Bool

    /// No request: an event, a response from the web, garbage.
    static let none = Reading(requests: [], choice: nil)

    func readings(_ bytes: [UInt8]) -> [Reading] {
        let d = decoder.decode(bytes, direction: .webToHost)
        if let e = d.envelope, d.isValid {
            guard e.type == .request else { return [Self.none] }
            var request = ReadRequest(id: e.correlationId, .init(kind: .routed(e), actions: [e.payload.action.rawValue],
                                                                 slot: SlotKind(action: e.payload.action), choice: nil))
            if !strict {
                let rules = Set(d.findings.map(\.rule))
                func invalid(_ codes: Set<ErrorCode>, _ choice: LegalChoice) {
                    request.ways.append(.init(kind: .invalid(codes: codes), actions: [e.payload.action.rawValue], slot: nil, choice: choice))
                }
                if rules.contains(.unknownField) { invalid([.invalidRequest], .unknownMemberInvalid) }
                if e.version != Envelope.protocolVersion { invalid([ErrorCode(rawValue: "VERSION_MISMATCH"), .invalidRequest], .minorVersionMismatch) }
                if Self.hasNullMember(bytes) { invalid([.invalidRequest], .nullMemberInvalid) }
                if !e.payload.action.rawValue.contains(".") { invalid([.invalidRequest], .undottedActionInvalid) }
            }
            let out = [Reading(requests: [request], choice: nil)]
            return out
        }
        guard let doc = try? JSONParser(limits: decoder.limits).parse(bytes) else {
            // Refused by this project's parser (syntax, limits, encoding): a host whose
            // parser reads more may take it as a request and answer once.
            guard !strict else { return [Self.none] }
            let loose = LooseIds.scan(bytes)
            guard !loose.isEmpty else { return [Self.none] }
            var unique: [String] = []
            for id in loose where !unique.contains(id) { unique.append(id) }
            return [Reading(requests: unique.map {
                ReadRequest(id: $0, mustAnswer: false, .init(kind: .loose, actions: [], slot: nil, choice: .otherParser))
            }, choice: nil)]
        }
        guard case .object(let object) = doc.value else { return [Self.none] }
        var out: [Reading] = []
        if var ours = malformed(d, object: object) {
            // With duplicate keys, routing is what the first-wins and last-wins readings
            // below say; this one is the message taken as invalid.
            if !doc.duplicateKeys.isEmpty { ours.requests[0].ways.removeAll { if case .routedAsFar = $0.kind { return true }; return false } }
            out.append(ours)
        }
        guard !strict else { return out.isEmpty ? [Self.none] : out }
        if !doc.duplicateKeys.isEmpty {
            for (choice, keepFirst) in [(LegalChoice.duplicateKeysFirstWins, true), (.duplicateKeysLastWins, false)] {
                let unique = JSONWriter().bytes(Self.deduplicated(.object(object), keepFirst: keepFirst))
                for r in readings(unique) {
                    let requests = r.requests.map { q in
                        var q = q
                        q.ways = q.ways.map { var w = $0; w.choice = w.choice ?? choice; return w }
                        return q
                    }
                    out.append(Reading(requests: requests, choice: choice))
                }
            }
            // Invalid, answered under any of the ids it carries.
            if object.members.contains(where: { $0.key == "type" && $0.value.stringValue == "request" }) {
                for m in object.members where m.key == "correlationId" {
                    guard let id = m.value.stringValue, !id.isEmpty, id != d.partial.correlationId else { continue }
                    out.append(Reading(requests: [ReadRequest(id: id, .init(kind: .invalid(codes: [.invalidRequest]), actions: [],
                                                                            slot: nil, choice: .duplicateKeysInvalid))],
                                       choice: .duplicateKeysInvalid))
                }
            }
        }
        return out.isEmpty ? [Self.none] : out
    }

    /// A JSON object with `"type":"request"` and a non-empty string id that is not a
    /// valid envelope: INVALID_REQUEST (ours), or routed as far as it can be (§7).
    func malformed(_ d: DecodeResult, object: JSONObject) -> Reading? {
        let p = d.partial
        guard p.type == .request, let id = p.correlationId, !id.isEmpty else { return nil }
        let ours = p.action.flatMap { Action(rawValue: $0).isWellFormed ? $0 : nil } ?? "invalid"
        let rules = Set(d.findings.map(\.rule))
        var codes: Set<ErrorCode> = [.invalidRequest]
        var actions = [ours]
        if !strict {
            if rules.contains(.unsupportedVersion) { codes.insert(ErrorCode(rawValue: "VERSION_MISMATCH")) }
            if let raw = p.action, !raw.isEmpty, raw != ours { actions.append(raw) }
        }
        var request = ReadRequest(id: id, .init(kind: .invalid(codes: codes), actions: actions, slot: nil, choice: nil))
        if !strict {
            let routedChoice: LegalChoice = rules.contains(RuleID(rawValue: "BRG017")) ? .bigNumberAccepted : .malformedRouted
            let raw = p.action.flatMap { $0.isEmpty ? nil : $0 } ?? "invalid"
            request.ways.append(.init(kind: .routedAsFar, actions: raw == "invalid" ? [raw] : [raw, "invalid"],
                                      slot: SlotKind(action: Action(rawValue: raw)), choice: routedChoice))
        }
        return Reading(requests: [request], choice: nil)
    }

    /// Whether an envelope or payload member is `null` (an optional member given as
    /// null, §7).
    static func hasNullMember(_ bytes: [UInt8]) -> Bool {
        // Most requests hold no `null` at all: parse a second time only those that do.
        let null = Array("null".utf8)
        guard bytes.count >= 4, (0...(bytes.count - 4)).contains(where: { bytes[$0] == 0x6E && bytes[$0..<($0 + 4)].elementsEqual(null) }),
              case .object(let o)? = try? JSONParser().parse(bytes).value else { return false }
        if o.members.contains(where: { $0.value.isNull }) { return true }
        if case .object(let p)? = o["payload"] { return p.members.contains { $0.value.isNull } }
        return false
    }

    /// `value` with only the first (or last) member of each name, at every level.
    static func deduplicated(_ value: JSONValue, keepFirst: Bool) -> JSONValue {
        switch value {
        case .object(let o):
            var kept: [JSONObject.Member] = []
            var index: [String: Int] = [:]
            for m in o.members {
                let v = deduplicated(m.value, keepFirst: keepFirst)
                if let i = index[m.key] {
                    if !keepFirst { kept[i].value = v }
                } else {
                    index[m.key] = kept.count
                    kept.append(JSONObject.Member(key: m.key, value: v))
                }
            }
            return .object(JSONObject(kept))
        case .array(let a):
            return .array(a.map { deduplicated($0, keepFirst: keepFirst) })
        default:
            return value
        }
    }
}
