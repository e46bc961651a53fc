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
