import BridgeJSON
import BridgeProtocol
import Logging
import BridgeClock

extension Scenario {
    /// A state machine scripted by this scenario (no external code: it runs entirely in a
    /// ``HostSimulator`` or under ``BridgeHost``).
    public func makeMachine(eventIDSeed: UInt64, limits: HostLimits = .default) -> HostStateMachine {
        let settings = HostStateMachine.Settings(hostVersion: hostVersion, environment: environment, limits: limits,
                                                 sendsHostReady: hostReady, startupEvents: events)
        var m = HostStateMachine(settings: settings, eventIDSeed: eventIDSeed)
        for kind in SlotKind.allCases {
            let s = self[slot: kind]
            m.setSlotVersion(kind, s.version)
            m.setSlotPermission(kind, s.permissionState)
            m.setSlotEnabled(kind, s.enabled)
            m.setSlotHandler(kind, s.handler ? .scripted(behaviour(kind, s)) : nil)
        }
        for c in custom where c.registered {
            m.registerCustomCapability(c.id, version: c.version, handler: .scripted(behaviour(c)))
        }
        return m
    }

    /// A host scripted by this scenario, on `clock`.
    public func makeHost(clock: any EpochClock = WallClock(), logger: Logger = Logger(label: "bridgescope.host"),
                         eventIDSeed: UInt64? = nil, limits: HostLimits = .default) -> BridgeHost {
        BridgeHost(machine: makeMachine(eventIDSeed: eventIDSeed ?? .random(in: .min ... .max), limits: limits),
                   clock: clock, logger: logger)
    }

    func behaviour(_ kind: SlotKind, _ s: Slot) -> ScriptedBehaviour {
        // The stub pictures are drawn and encoded once per process (StubCaptures).
        let success: BridgeResponse
        var bySide: [String: JSONObject] = [:]
        switch kind {
        case .document:
            success = StubCaptures.documentSuccess
            bySide = StubCaptures.documentDataBySide
        case .selfie:
            success = StubCaptures.selfieSuccess[selfieBlobs]!
        }
        let responses = s.outcomes.map { outcome -> BridgeResponse in
            switch outcome {
            case .success: return success
            case .cancelled: return .cancelled(reason: s.cancelReason)
            case .denied: return .failure(.cameraDenied, "Camera permission was denied", recoverable: true)
            case .failed:
                let e = s.error ?? ErrorPayload(code: .captureFailed, message: "The capture failed", recoverable: true)
                return BridgeResponse(status: .error, error: e)
            }
        }
        return ScriptedBehaviour(latencyMs: s.latencyMs, outcomes: responses, successDataBySide: bySide)
    }

    func behaviour(_ c: Custom) -> ScriptedBehaviour {
        let isNFC = c.id.hasPrefix("nfc.")
        guard c.available else {
            let response: BridgeResponse = isNFC
                ? .unsupported(.nfcNotAvailable, "NFC reading is not available on this device", recoverable: false)
                : .unsupported(.capabilityUnavailable, "\(c.id) is not available on this device", recoverable: false)
            return ScriptedBehaviour(latencyMs: c.latencyMs, always: response)
        }
        let responses = c.outcomes.map { outcome -> BridgeResponse in
            switch outcome {
            case .success: return .success(c.data)
            case .cancelled: return .cancelled(reason: c.cancelReason)
            case .denied: return .failure(.permissionDenied, "Permission for \(c.id) was denied", recoverable: true)
            case .failed:
                let e = c.error ?? (isNFC ? ErrorPayload(code: .nfcError, message: "Reading the chip failed", recoverable: true)
                    : ErrorPayload(code: .captureFailed, message: "\(c.id) failed", recoverable: true))
                return BridgeResponse(status: .error, error: e)
            }
        }
        return ScriptedBehaviour(latencyMs: c.latencyMs, outcomes: responses)
    }
}
