import BridgeHost

/// A change to the host's configuration in the middle of a fuzz case (issue 8: "scenario
/// toggles mid-flight"), applied through the state machine's public configuration API.
/// Removals are permanent for the rest of the case (the machine does not hand handlers
/// back); enable/disable and permission changes can go back and forth.
///
/// An open set of spellings: a case file naming a toggle this version does not know
/// is read, kept and ignored when run.
public struct ScenarioToggle: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The spelling in case files, e.g. `camera.document:disable`.
    public let rawValue: String
    /// Wraps a spelling.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The spelling.
    public var description: String { rawValue }

    /// `camera.document` disabled (handler kept): reported `supported: false`.
    public static let documentDisable = ScenarioToggle(rawValue: "camera.document:disable")
    /// `camera.document` enabled again.
    static let documentEnable = ScenarioToggle(rawValue: "camera.document:enable")
    /// `camera.document` loses its handler (absent from `capability.query`).
    static let documentRemoveHandler = ScenarioToggle(rawValue: "camera.document:remove-handler")
    /// `camera.document` permission becomes `denied`.
    static let documentDenied = ScenarioToggle(rawValue: "camera.document:permission-denied")
    /// `camera.document` permission becomes `granted`.
    static let documentGranted = ScenarioToggle(rawValue: "camera.document:permission-granted")
    /// `camera.selfie` disabled.
    public static let selfieDisable = ScenarioToggle(rawValue: "camera.selfie:disable")
    /// `camera.selfie` enabled again.
    static let selfieEnable = ScenarioToggle(rawValue: "camera.selfie:enable")
    /// `camera.selfie` loses its handler.
    static let selfieRemoveHandler = ScenarioToggle(rawValue: "camera.selfie:remove-handler")
    /// `camera.selfie` permission becomes `notDetermined`.
    static let selfieNotDetermined = ScenarioToggle(rawValue: "camera.selfie:permission-notDetermined")
    /// Every custom capability is unregistered.
    static let customUnregisterAll = ScenarioToggle(rawValue: "custom:unregister-all")

    /// The toggles this version runs.
    public static let known: [ScenarioToggle] = [
        .documentDisable, .documentEnable, .documentRemoveHandler, .documentDenied, .documentGranted,
        .selfieDisable, .selfieEnable, .selfieRemoveHandler, .selfieNotDetermined, .customUnregisterAll,
    ]

    /// Applies the toggle to a machine (unknown toggles do nothing).
    public func apply(to m: inout HostStateMachine) {
        switch self {
        case .documentDisable: m.setSlotEnabled(.document, false)
        case .documentEnable: m.setSlotEnabled(.document, true)
        case .documentRemoveHandler: m.setSlotHandler(.document, nil)
        case .documentDenied: m.setSlotPermission(.document, .denied)
        case .documentGranted: m.setSlotPermission(.document, .granted)
        case .selfieDisable: m.setSlotEnabled(.selfie, false)
        case .selfieEnable: m.setSlotEnabled(.selfie, true)
        case .selfieRemoveHandler: m.setSlotHandler(.selfie, nil)
        case .selfieNotDetermined: m.setSlotPermission(.selfie, .notDetermined)
        case .customUnregisterAll:
            for id in m.customCapabilityIDs { m.unregisterCustomCapability(id) }
        default: break
        }
    }

    /// Applies the toggle to the oracle's independent model of the host's capabilities.
    public func apply(to model: inout CapabilityModel) {
        switch self {
        case .documentDisable: model.slots[.document]?.enabled = false
        case .documentEnable: model.slots[.document]?.enabled = true
        case .documentRemoveHandler: model.slots[.document]?.handler = false
        case .documentDenied: model.slots[.document]?.permission = "denied"
        case .documentGranted: model.slots[.document]?.permission = "granted"
        case .selfieDisable: model.slots[.selfie]?.enabled = false
        case .selfieEnable: model.slots[.selfie]?.enabled = true
        case .selfieRemoveHandler: model.slots[.selfie]?.handler = false
        case .selfieNotDetermined: model.slots[.selfie]?.permission = "notDetermined"
        case .customUnregisterAll: model.custom.removeAll()
        default: break
        }
    }
}
