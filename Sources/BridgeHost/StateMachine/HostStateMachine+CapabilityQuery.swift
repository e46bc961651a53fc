import BridgeJSON
import BridgeProtocol

extension HostStateMachine {
    /// The `data` of the built-in `capability.query` answer (PROTOCOL.md §3):
    /// `{environment, hostVersion, capabilities}`.
    ///
    /// Each capability id is reported by the first of, in precedence order: a typed slot
    /// with a handler and enabled; a custom capability (`supported: true`); the static
    /// configuration. A slot with a handler that is disabled, and that nothing lower
    /// provides, is reported `supported: false`; a slot with no handler is absent. Order:
    /// the slots, then custom capabilities in registration order, then the configuration's
    /// ids sorted.
    public func capabilityAnswer() -> JSONObject {
        var order: [String] = []
        var entries: [String: JSONObject] = [:]
        func offer(_ id: String, _ entry: JSONObject) {
            if entries[id] == nil {
                order.append(id)
                entries[id] = entry
            }
        }
        for slot in SlotKind.allCases where isSupported(slot) {
            offer(slot.capabilityID, slotEntry(slot))
        }
        for c in customCapabilities {
            offer(c.id, BridgeCapabilityInfo(supported: true, version: c.version).jsonObject)
        }
        for id in settings.staticCapabilities.keys.sorted() {
            offer(id, settings.staticCapabilities[id]!.jsonObject)
        }
        for slot in SlotKind.allCases where hasHandler(slot) && !isEnabled(slot) {
            offer(slot.capabilityID, slotEntry(slot))
        }
        let slotIDs = SlotKind.allCases.map(\.capabilityID)
        order.sort { a, b in
            let ia = slotIDs.firstIndex(of: a) ?? Int.max, ib = slotIDs.firstIndex(of: b) ?? Int.max
            return ia < ib
        }
        return .make([
            "environment": .string(settings.environment.rawValue),
            "hostVersion": .string(settings.hostVersion),
            "capabilities": .object(JSONObject(order.map { JSONObject.Member(key: $0, value: .object(entries[$0]!)) })),
        ])
    }

    func slotEntry(_ slot: SlotKind) -> JSONObject {
        BridgeCapabilityInfo(supported: isSupported(slot), version: version(slot),
                             permissionState: permissionState(slot)).jsonObject
    }
}

/// The built-in `capability.query` answer, built, checked and encoded once per
/// configuration: answering a query then only splices the request's correlationId and the
/// time into bytes the encoder already accepted (the answer is identical, byte for byte,
/// to what `EnvelopeEncoder` produces; debug builds check it on every answer).
struct CapabilityAnswerCache: Sendable {
    /// The answer's `data`.
    var answer: JSONObject
    /// `{"version":"1.0","correlationId":` — the bytes before the correlationId.
    var head: [UInt8]
    /// `,"type":"response","timestamp":` — between the correlationId and the time.
    var middle: [UInt8]
    /// `,"payload":{...}}` — the rest, data included.
    var tail: [UInt8]

    /// Below this a millisecond timestamp reads as seconds (`timestamp-in-seconds`): such
    /// answers take the encoder's path.
    static let minimumTimestamp: Int64 = 100_000_000_000
}

extension HostStateMachine {
    /// Answers a valid `capability.query` request (PROTOCOL.md §3) from the cache, building
    /// the cache first when the configuration changed.
    mutating func sendCapabilityAnswer(to request: Envelope, now: Int64, _ out: inout [HostAction]) {
        if capabilityCache == nil { capabilityCache = makeCapabilityCache(now: now) }
        let id = request.correlationId
        guard let cache = capabilityCache, !id.isEmpty, now >= CapabilityAnswerCache.minimumTimestamp else {
            sendResponse(to: request, .success(capabilityAnswer()), now: now, &out)
            return
        }
        var bytes = cache.head
        bytes.reserveCapacity(cache.head.count + id.utf8.count + cache.middle.count + 20 + cache.tail.count)
        JSONWriter.writeString(id, into: &bytes)
        bytes += cache.middle
        bytes += String(now).utf8
        bytes += cache.tail
        let envelope = Envelope.response(correlationId: id, action: .capabilityQuery, status: .success,
                                         data: cache.answer, timestamp: now)
        assert(encodeClean(envelope) == bytes, "the cached capability answer differs from the encoder's")
        out.append(.send(OutboundMessage(envelope: envelope, bytes: bytes)))
        if emitsDebugLog {
            out.append(.log(HostLogEntry(.debug, "sent", "success capability.query", correlationId: id)))
        }
    }

    /// Encodes the answer once with a placeholder id and `now`, and cuts it around them.
    /// Nil when the encoder refuses the answer (the slow path then answers INTERNAL_ERROR).
    func makeCapabilityCache(now: Int64) -> CapabilityAnswerCache? {
        let answer = capabilityAnswer()
        let stamp = max(now, CapabilityAnswerCache.minimumTimestamp)
        let probe = Envelope.response(correlationId: "x", action: .capabilityQuery, status: .success, data: answer,
                                      timestamp: stamp)
        guard let bytes = encodeClean(probe) else { return nil }
        let head = Array(#"{"version":""#.utf8) + Array(Envelope.protocolVersion.utf8) + Array(#"","correlationId":"#.utf8)
        let middle = Array(#","type":"response","timestamp":"#.utf8)
        let fixed = head + Array(#""x""#.utf8) + middle + Array(String(stamp).utf8)
        guard bytes.count > fixed.count, Array(bytes[..<fixed.count]) == fixed else { return nil }
        return CapabilityAnswerCache(answer: answer, head: head, middle: middle, tail: Array(bytes[fixed.count...]))
    }
}
