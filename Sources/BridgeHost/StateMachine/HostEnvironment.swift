/// The `environment` a host reports in its `capability.query` answer (PROTOCOL.md §3).
/// An open set; the environment also names host events (`ios-event-<uuid>`).
public struct HostEnvironment: RawRepresentable, Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The wire spelling.
    public let rawValue: String
    /// Wraps a wire spelling.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Wraps a literal.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The wire spelling.
    public var description: String { rawValue }

    /// An iOS host (WKWebView). Events are `ios-event-<uuid>`.
    public static let ios = HostEnvironment(rawValue: "ios")
    /// An Android host (WebView). Events are `android-event-<uuid>`.
    public static let android = HostEnvironment(rawValue: "android")
    /// An iframe host. Events are `web-event-<uuid>` (project rule).
    public static let web = HostEnvironment(rawValue: "web")

    /// The three environments PROTOCOL.md §3 names.
    public static let known: [HostEnvironment] = [.ios, .android, .web]

    /// The prefix of host event correlation ids: `<environment>-event-`.
    var eventIDPrefix: String { rawValue + "-event-" }
}

/// A capability's permission state, reported in `capability.query` (PROTOCOL.md §3).
/// An open set with the four states the seeds name.
public struct PermissionState: RawRepresentable, Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The wire spelling.
    public let rawValue: String
    /// Wraps a wire spelling.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Wraps a literal.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The wire spelling.
    public var description: String { rawValue }

    /// The user allowed access.
    public static let granted = PermissionState(rawValue: "granted")
    /// The user refused access.
    public static let denied = PermissionState(rawValue: "denied")
    /// The user was not asked yet.
    public static let notDetermined = PermissionState(rawValue: "notDetermined")
    /// Access is blocked by policy (parental controls, MDM).
    public static let restricted = PermissionState(rawValue: "restricted")

    /// The four states the seeds name.
    public static let known: [PermissionState] = [.granted, .denied, .notDetermined, .restricted]
}

/// The two typed capture slots (seed 002): `camera.document` and `camera.selfie`.
public enum SlotKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `host.documentCapture`: capability `camera.document`, action `camera.document.capture`.
    case document
    /// `host.selfieCapture`: capability `camera.selfie`, action `camera.selfie.capture`.
    case selfie

    /// The capability id, e.g. `camera.document`.
    public var capabilityID: String {
        switch self {
        case .document: return "camera.document"
        case .selfie: return "camera.selfie"
        }
    }

    /// The capture action, `<capabilityID>.capture`.
    public var action: BridgeProtocol.Action {
        switch self {
        case .document: return .documentCapture
        case .selfie: return .selfieCapture
        }
    }

    /// The slot whose capture action is `action`, if any.
    public init?(action: BridgeProtocol.Action) {
        switch action {
        case .documentCapture: self = .document
        case .selfieCapture: self = .selfie
        default: return nil
        }
    }

    /// The slot with capability id `id`, if any.
    public init?(capabilityID id: String) {
        guard let kind = SlotKind.allCases.first(where: { $0.capabilityID == id }) else { return nil }
        self = kind
    }

    /// The capability id.
    public var description: String { capabilityID }
}

import BridgeProtocol
