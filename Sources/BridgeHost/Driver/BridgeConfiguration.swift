import BridgeJSON

/// One capability in a static ``BridgeConfiguration`` (seed 002, configuration-based
/// approach), reported as is by `capability.query` unless something of higher precedence
/// (a supported typed slot, a custom capability) has the same id.
public struct BridgeCapabilityInfo: Sendable, Hashable {
    /// `supported`.
    public var supported: Bool
    /// `version`, e.g. `1.0`.
    public var version: String
    /// `constraints`, if any (free-form object such as `{"maxResolution": 4096}`).
    public var constraints: JSONObject?
    /// `permissionState`, if the capability reports one.
    public var permissionState: PermissionState?

    /// Creates capability info.
    public init(supported: Bool, version: String, constraints: JSONObject? = nil, permissionState: PermissionState? = nil) {
        self.supported = supported
        self.version = version
        self.constraints = constraints
        self.permissionState = permissionState
    }

    /// The `capabilities.<id>` object: `supported`, `version`, then `permissionState` and
    /// `constraints` when present.
    public var jsonObject: JSONObject {
        var o: JSONObject = JSONObject([.init(key: "supported", value: .bool(supported)),
                                        .init(key: "version", value: .string(version))])
        if let permissionState { o.members.append(.init(key: "permissionState", value: .string(permissionState.rawValue))) }
        if let constraints { o.members.append(.init(key: "constraints", value: .object(constraints))) }
        return o
    }
}

/// The static configuration of a configuration-based host (`BridgeHost(configuration:)`).
public struct BridgeConfiguration: Sendable, Hashable {
    /// `hostVersion` in `capability.query`.
    public var hostVersion: String
    /// `environment` in `capability.query`; also names host events.
    public var environment: HostEnvironment
    /// Declared capabilities by id; reported in id order.
    public var capabilities: [String: BridgeCapabilityInfo]

    /// Creates a configuration.
    public init(hostVersion: String, environment: HostEnvironment = .ios, capabilities: [String: BridgeCapabilityInfo] = [:]) {
        self.hostVersion = hostVersion
        self.environment = environment
        self.capabilities = capabilities
    }
}
