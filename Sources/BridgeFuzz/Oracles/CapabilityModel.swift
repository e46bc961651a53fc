import BridgeHost
import BridgeJSON
import BridgeProtocol

/// The oracle's own model of what a scenario host must answer to `capability.query`,
/// written from PROTOCOL.md §3 and docs/SCENARIOS.md, not from the host's code (an oracle
/// that asked the host would agree with any bug).
///
/// Precedence: a typed slot with a handler and enabled (`supported: true`, its version
/// and permission state) > a custom capability (`supported: true`, its version) > a slot
/// with a handler that is disabled (`supported: false`); a slot with no handler is absent.
public struct CapabilityModel: Sendable, Hashable {
    /// One typed slot.
    public struct SlotModel: Sendable, Hashable {
        /// Has a handler.
        public var handler: Bool
        /// Enabled.
        public var enabled: Bool
        /// Reported permission state (nil: not reported).
        public var permission: String?
        /// Reported version.
        public var version: String
        /// Longest scripted latency (for deadlines).
        public var latencyMs: Int64
    }

    /// One registered custom capability.
    public struct CustomModel: Sendable, Hashable {
        /// The id, which is also its action.
        public var id: String
        /// Reported version.
        public var version: String
        /// Scripted latency.
        public var latencyMs: Int64
    }

    /// `environment`.
    public var environment: String
    /// `hostVersion`.
    public var hostVersion: String
    /// The two typed slots.
    public var slots: [SlotKind: SlotModel]
    /// Registered custom capabilities, in registration order.
    public var custom: [CustomModel]

    /// The model of a scenario's host at start.
    public init(_ s: Scenario) {
        environment = s.environment.rawValue
        hostVersion = s.hostVersion
        var slots: [SlotKind: SlotModel] = [:]
        for kind in SlotKind.allCases {
            let slot = s[slot: kind]
            slots[kind] = SlotModel(handler: slot.handler, enabled: slot.enabled, permission: slot.permissionState?.rawValue,
                                    version: slot.version, latencyMs: slot.latencyMs)
        }
        self.slots = slots
        custom = s.custom.filter(\.registered).map { CustomModel(id: $0.id, version: $0.version, latencyMs: $0.latencyMs) }
    }

    /// Whether a capture on `kind` is served (handler and enabled).
    public func isSupported(_ kind: SlotKind) -> Bool {
        guard let s = slots[kind] else { return false }
        return s.handler && s.enabled
    }

    /// The expected `capabilities` entries by id.
    var expectedCapabilities: [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        func entry(supported: Bool, version: String, permission: String?) -> JSONValue {
            var members: [JSONObject.Member] = [.init(key: "supported", value: .bool(supported)),
                                                .init(key: "version", value: .string(version))]
            if let permission { members.append(.init(key: "permissionState", value: .string(permission))) }
            return .object(JSONObject(members))
        }
        for c in custom where out[c.id] == nil {
            out[c.id] = entry(supported: true, version: c.version, permission: nil)
        }
        for kind in SlotKind.allCases {
            guard let s = slots[kind], s.handler else { continue }
            if s.enabled {
                out[kind.capabilityID] = entry(supported: true, version: s.version, permission: s.permission)
            } else if out[kind.capabilityID] == nil {
                out[kind.capabilityID] = entry(supported: false, version: s.version, permission: s.permission)
            }
        }
        return out
    }

    /// The largest scripted latency of whoever serves `action` (0 when nobody does).
    public func latency(of action: String) -> Int64 {
        if let kind = SlotKind(action: Action(rawValue: action)), let s = slots[kind] {
            return s.latencyMs
        }
        return custom.first { $0.id == action }?.latencyMs ?? 0
    }
}
