import BridgeProtocol

/// A typed capture slot (seed 002's `CaptureCapability`): `host.documentCapture` or
/// `host.selfieCapture`. A view onto the host's state: copies refer to the same slot,
/// and every property can be set through it (`host.documentCapture.isEnabled = false`).
///
/// Setting ``handler`` declares the capability (handler-as-declaration): ``isSupported``
/// is `handler != nil && isEnabled`. While a request is active, another request for the
/// slot is answered at once with `error` / `BUSY` (recoverable).
public struct CaptureSlot: Sendable {
    /// The host the slot belongs to.
    public let host: BridgeHost
    /// Which slot.
    public let kind: SlotKind

    /// The capability id, `camera.document` or `camera.selfie`.
    public var capabilityID: String { kind.capabilityID }

    /// The handler; setting it declares support, `nil` withdraws it. A capture in progress
    /// finishes with the handler that started it.
    public var handler: BridgeHost.SlotHandler? {
        get { host.core.withLock { $0.slotHandlers[kind] } }
        nonmutating set {
            host.core.withLock { c in
                c.slotHandlers[kind] = newValue
                c.machine.setSlotHandler(kind, newValue == nil ? nil : .external)
            }
        }
    }

    /// Serves the slot with a ``ScriptedBehaviour`` run by the state machine (scenario
    /// hosts); replaces any handler closure. `nil` removes it.
    func setScript(_ behaviour: ScriptedBehaviour?) {
        host.core.withLock { c in
            c.slotHandlers[kind] = nil
            c.machine.setSlotHandler(kind, behaviour.map { .scripted($0) })
        }
    }

    /// Whether the slot has a handler (closure or script).
    public var hasHandler: Bool { host.core.withLock { $0.machine.hasHandler(kind) } }

    /// Temporarily disables the slot without removing its handler. Default true.
    public var isEnabled: Bool {
        get { host.core.withLock { $0.machine.isEnabled(kind) } }
        nonmutating set { host.core.withLock { $0.machine.setSlotEnabled(kind, newValue) } }
    }

    /// `handler != nil && isEnabled`.
    public var isSupported: Bool { host.core.withLock { $0.machine.isSupported(kind) } }

    /// Reported in `capability.query` when set. Default nil (not reported).
    public var permissionState: PermissionState? {
        get { host.core.withLock { $0.machine.permissionState(kind) } }
        nonmutating set { host.core.withLock { $0.machine.setSlotPermission(kind, newValue) } }
    }

    /// Reported in `capability.query`. Default `1.0`.
    public var version: String {
        get { host.core.withLock { $0.machine.version(kind) } }
        nonmutating set { host.core.withLock { $0.machine.setSlotVersion(kind, newValue) } }
    }

    /// The request being served, if any (set when the request is routed, cleared when its
    /// response is sent).
    public var activeRequest: Envelope? { host.core.withLock { $0.machine.activeRequest(kind) } }

    /// Suspends the handler until ``complete(_:)`` delivers the active request's result
    /// (seed 000/002's SwiftUI pattern). Returns at once when `complete` came first.
    /// Returns `.cancelled` when there is no active request, when another call is already
    /// waiting, or when the host's run is cancelled.
    public func awaitCompletion() async -> CaptureResult {
        await host.awaitCompletion(kind)
    }

    /// Delivers the active request's result to ``awaitCompletion()``. Only the first call
    /// per request counts; later calls, and calls with no active request, are ignored and
    /// logged. Returns whether the result was taken.
    @discardableResult
    public func complete(_ result: CaptureResult) -> Bool {
        host.complete(kind, result)
    }
}

extension BridgeHost {
    /// `camera.document`: document capture (action `camera.document.capture`).
    public var documentCapture: CaptureSlot { CaptureSlot(host: self, kind: .document) }
    /// `camera.selfie`: selfie capture (action `camera.selfie.capture`).
    public var selfieCapture: CaptureSlot { CaptureSlot(host: self, kind: .selfie) }
    /// The slot of `kind`.
    public func slot(_ kind: SlotKind) -> CaptureSlot { CaptureSlot(host: self, kind: kind) }

    func awaitCompletion(_ kind: SlotKind) async -> CaptureResult {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<CaptureResult, Never>) in
                let immediate: CaptureResult? = core.withLock { c in
                    if Task.isCancelled { return .cancelled(reason: "The host stopped") }
                    guard let token = c.machine.activeToken(kind) else {
                        return .cancelled(reason: "No \(kind.capabilityID) request is active")
                    }
                    var box = c.completions[kind].flatMap { $0.token == token ? $0 : nil } ?? SlotCompletion(token: token)
                    if let result = box.result, !box.delivered {
                        box.delivered = true
                        c.completions[kind] = box
                        return result
                    }
                    if box.waiter != nil || box.delivered {
                        return .cancelled(reason: "awaitCompletion() was already called for this request")
                    }
                    box.waiter = waiter
                    c.completions[kind] = box
                    return nil
                }
                if let immediate { waiter.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = core.withLock { c -> CheckedContinuation<CaptureResult, Never>? in
                let w = c.completions[kind]?.waiter
                c.completions[kind]?.waiter = nil
                return w
            }
            waiter?.resume(returning: .cancelled(reason: "The host stopped"))
        }
    }

    func complete(_ kind: SlotKind, _ result: CaptureResult) -> Bool {
        var refusal: HostLogEntry?
        let waiter = core.withLock { c -> CheckedContinuation<CaptureResult, Never>? in
            guard let token = c.machine.activeToken(kind) else {
                refusal = HostLogEntry(.warning, "complete-ignored",
                                       "\(kind.capabilityID).complete(\(result.kindName)) ignored: no request is active")
                return nil
            }
            var box = c.completions[kind].flatMap { $0.token == token ? $0 : nil } ?? SlotCompletion(token: token)
            if box.delivered || box.result != nil {
                refusal = HostLogEntry(.warning, "complete-ignored",
                    "\(kind.capabilityID).complete(\(result.kindName)) ignored: this request was already completed",
                    correlationId: token.correlationId)
                return nil
            }
            if let w = box.waiter {
                box.waiter = nil
                box.delivered = true
                c.completions[kind] = box
                return w
            }
            box.result = result
            c.completions[kind] = box
            return nil
        }
        if let refusal {
            emit([refusal])
            return false
        }
        waiter?.resume(returning: result)
        return true
    }
}
