import BridgeJSON
import BridgeProtocol

/// A scripted host: per capability, whether it is there, its permission state, latency
/// and outcomes, plus the host's environment, version and timed events. The file format
/// is specified in docs/SCENARIOS.md; ``parse(_:)`` reads it, ``makeHost(clock:logger:eventIDSeed:)``
/// builds the host.
public struct Scenario: Sendable, Hashable {
    /// How a scripted request ends.
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        /// `success` with the stub camera's image (slots) or the capability's `data`.
        case success
        /// `cancelled` with `{"reason": cancelReason}`.
        case cancelled
        /// `error`: `CAMERA_DENIED` on slots, `PERMISSION_DENIED` on custom capabilities
        /// (recoverable).
        case denied
        /// `error` with the entry's `error` object (defaults per capability).
        case failed
    }

    /// A typed slot's script (`camera.document`, `camera.selfie`).
    public struct Slot: Sendable, Hashable {
        /// Whether the slot has a handler (false: absent from `capability.query`, requests
        /// answered `unsupported` / `UNSUPPORTED_ACTION`).
        public var handler = true
        /// `isEnabled` (false: reported `supported: false`, requests answered `unsupported` /
        /// `CAPABILITY_UNAVAILABLE`).
        public var enabled = true
        /// Reported permission state; nil: not reported.
        public var permissionState: PermissionState? = .granted
        /// Reported version.
        public var version = "1.0"
        /// Delay before each answer.
        public var latencyMs: Int64 = 100
        /// Outcomes of successive requests; the last repeats.
        public var outcomes: [Outcome] = [.success]
        /// The error of `failed` outcomes; nil: `CAPTURE_FAILED`, "The capture failed", recoverable.
        public var error: ErrorPayload?
        /// The reason of `cancelled` outcomes.
        public var cancelReason = "User dismissed"

        /// The default slot: handler, enabled, granted, 100 ms, success.
        public init() {}
    }

    /// A custom capability's script (`nfc.read` or any id).
    public struct Custom: Sendable, Hashable {
        /// The capability id, which is also its action.
        public var id: String
        /// Whether it is registered (false: absent, requests answered `UNSUPPORTED_ACTION`).
        public var registered = true
        /// Whether the feature works: false answers every request `unsupported` with
        /// `NFC_NOT_AVAILABLE` (`nfc.*` ids) or `CAPABILITY_UNAVAILABLE`, not recoverable
        /// (seed 003's in-handler guard), while `capability.query` still reports it.
        public var available = true
        /// Reported version.
        public var version = "1.0"
        /// Delay before each answer.
        public var latencyMs: Int64 = 100
        /// Outcomes of successive requests; the last repeats.
        public var outcomes: [Outcome] = [.success]
        /// `data` of a success.
        public var data: JSONObject
        /// The error of `failed` outcomes; nil: `NFC_ERROR` (`nfc.*`) or `CAPTURE_FAILED`, recoverable.
        public var error: ErrorPayload?
        /// The reason of `cancelled` outcomes.
        public var cancelReason = "User cancelled"

        /// A custom capability with default settings; `nfc.read` answers
        /// `{"chipRead":true,"dataGroups":["DG1","DG2"]}` (seed 003), others `{}`.
        public init(id: String) {
            self.id = id
            data = id == "nfc.read"
                ? .make(["chipRead": .bool(true), "dataGroups": .array([.string("DG1"), .string("DG2")])])
                : JSONObject()
        }
    }

    /// Free-form name, for logs.
    public var name: String?
    /// Free-form description.
    public var description: String?
    /// `environment`.
    public var environment: HostEnvironment = .ios
    /// `hostVersion`.
    public var hostVersion = "1.0.0"
    /// Whether the host sends `host.ready` first.
    public var hostReady = true
    /// How the stub selfie fills its blobs.
    public var selfieBlobs: StubSelfieCamera.BlobStyle = .distinctPlaceholders
    /// `camera.document`.
    public var document = Slot()
    /// `camera.selfie`.
    public var selfie = Slot()
    /// Custom capabilities, in registration order.
    public var custom: [Custom] = [Custom(id: "nfc.read")]
    /// Host events sent after start.
    public var events: [HostStateMachine.ScheduledEvent] = []

    /// The default host of `bridgescope host` (issue 4's CLI contract): iOS, 1.0.0, both
    /// slots granted and succeeding after 100 ms, `nfc.read` 1.0 succeeding after 100 ms,
    /// `host.ready` first.
    public init() {}

    /// The default host.
    public static let `default` = Scenario()

    /// A host with nothing: no slot handler, no custom capability.
    public static var empty: Scenario {
        var s = Scenario()
        s.document.handler = false
        s.selfie.handler = false
        s.custom = []
        return s
    }

    /// The slot script of `kind`.
    public subscript(slot kind: SlotKind) -> Slot {
        get { kind == .document ? document : selfie }
        set { if kind == .document { document = newValue } else { selfie = newValue } }
    }
}
