import BridgeJSON

/// Protocol-aware mutations of one envelope (issue 8): versions, types, statuses on
/// requests, error payload shapes, actions from the dictionary and near misses,
/// correlationId collisions with other messages of the case, empty and huge ids,
/// timestamps, data shapes, missing and unknown members.
struct ProtocolMutator {
    enum Kind: Int, CaseIterable {
        case version, type, statusOnRequest, errorPayload, action, nearMissAction, collideId, emptyId, hugeId,
             idType, timestamp, dataShape, dropRequired, unknownMember, makeResponse
    }

    static let weights: [Int] = [5, 6, 5, 5, 10, 8, 10, 3, 3, 3, 5, 5, 5, 3, 3]

    /// Mutates the envelope object `root` (anything else is replaced by a fresh envelope).
    /// `otherIds` are the correlationIds of the case's other messages.
    @discardableResult
    static func mutate(_ root: inout JSONValue, otherIds: [String], _ rng: inout FuzzRandom) -> Kind {
        guard case .object(var o) = root else {
            root = MessageWriter.parse(MessageWriter.envelope(id: "fz-\(rng.below(1000))", type: "request",
                                                              action: rng.pick(FuzzDictionary.actions)!))!
            return .action
        }
        let kind = Kind(rawValue: rng.weighted(weights))!
        var payload = o["payload"]?.objectValue ?? JSONObject([.init(key: "action", value: "capability.query")])
        var keepPayload = true
        switch kind {
        case .version:
            o.set("version", rng.oneIn(8) ? .number(JSONNumber(uncheckedLexeme: "1.0")) : .string(rng.pick(FuzzDictionary.versions)!))
        case .type:
            o.set("type", rng.oneIn(10) ? .null : .string(rng.pick(FuzzDictionary.types)!))
        case .statusOnRequest:
            payload.set("status", rng.oneIn(6) ? .integer(1) : .string(rng.pick(FuzzDictionary.statuses)!))
        case .errorPayload:
            payload.set("error", errorShape(&rng))
            if rng.oneIn(2) { payload.set("status", .string(rng.pick(FuzzDictionary.statuses)!)) }
        case .action:
            payload.set("action", .string(rng.pick(FuzzDictionary.actions)!))
        case .nearMissAction:
            payload.set("action", rng.oneIn(8) ? JSONTreeMutator.randomScalar(&rng) : .string(rng.pick(FuzzDictionary.nearMissActions)!))
        case .collideId:
            if let id = rng.pick(otherIds) { o.set("correlationId", .string(id)) }
            else { o.set("correlationId", .string("ios-event-\(rng.below(4))")) }
        case .emptyId:
            o.set("correlationId", .string(rng.pick(["", " ", "\u{0000}", "\u{200B}"])!))
        case .hugeId:
            let n = rng.oneIn(32) ? rng.pick([65_536, 1 << 20])! : rng.pick([255, 256, 1023, 1024, 1025, 4096])!
            o.set("correlationId", .string(String(repeating: rng.oneIn(2) ? "a" : "\u{1F600}", count: n / (rng.oneIn(2) ? 1 : 4))))
        case .idType:
            o.set("correlationId", JSONTreeMutator.randomValue(&rng, depth: 1, avoiding: "string"))
        case .timestamp:
            switch rng.below(4) {
            case 0: o.set("timestamp", .number(JSONNumber(uncheckedLexeme: rng.pick(FuzzDictionary.numbers)!)))
            case 1: o.set("timestamp", .string("1700000000000"))
            case 2: o.set("timestamp", .number(JSONNumber(uncheckedLexeme: "1700000000")))
            default: o.remove("timestamp")
            }
        case .dataShape:
            switch rng.below(5) {
            case 0: payload.set("data", .null)
            case 1: payload.set("data", .array([]))
            case 2: payload.set("data", .string("front"))
            case 3: payload.set("data", .object(JSONObject([.init(key: "side", value: .string(rng.pick(["front", "back", "single", "", "FRONT"])!)),
                                                             .init(key: "documentType", value: "passport")])))
            default: payload.remove("data")
            }
        case .dropRequired:
            let key = rng.pick(["version", "correlationId", "type", "timestamp", "payload", "action"])!
            if key == "action" { payload.remove("action") } else { o.remove(key) }
            if key == "payload" { keepPayload = false }
        case .unknownMember:
            if rng.oneIn(2) { o.members.append(.init(key: rng.pick(FuzzDictionary.envelopeKeys)!, value: JSONTreeMutator.randomScalar(&rng))) }
            else { payload.members.append(.init(key: rng.pick(FuzzDictionary.envelopeKeys)!, value: JSONTreeMutator.randomScalar(&rng))) }
        case .makeResponse:
            o.set("type", "response")
            payload.set("status", .string(rng.pick(FuzzDictionary.statuses)!))
        }
        if keepPayload { o.set("payload", .object(payload)) }
        root = .object(o)
        return kind
    }

    static func errorShape(_ rng: inout FuzzRandom) -> JSONValue {
        let code: JSONValue = .string(rng.pick(FuzzDictionary.errorCodes)!)
        switch rng.below(7) {
        case 0: return .object(JSONObject([.init(key: "code", value: code), .init(key: "message", value: "m"), .init(key: "recoverable", value: true)]))
        case 1: return .object(JSONObject([.init(key: "code", value: code)]))
        case 2: return .object(JSONObject([.init(key: "code", value: 1), .init(key: "message", value: .null), .init(key: "recoverable", value: "yes")]))
        case 3: return .string("BUSY")
        case 4: return .array([code])
        case 5: return .null
        default:
            return .object(JSONObject([.init(key: "code", value: code), .init(key: "message", value: "m"),
                                       .init(key: "recoverable", value: false), .init(key: "extra", value: 1)]))
        }
    }
}
