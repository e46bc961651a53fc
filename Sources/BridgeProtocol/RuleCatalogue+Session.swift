extension RuleID {
    /// A request never got a final response before the session ended.
    public static let unansweredRequest = RuleID(rawValue: "BRG100")
    /// A final response arrived after the requester's timeout.
    public static let lateResponse = RuleID(rawValue: "BRG101")
    /// A response to a correlationId that was never requested.
    public static let unknownCorrelation = RuleID(rawValue: "BRG102")
    /// A second final response to one request.
    public static let duplicateResponse = RuleID(rawValue: "BRG103")
    /// A request reuses the correlationId of an earlier request.
    public static let reusedCorrelationId = RuleID(rawValue: "BRG104")
    /// A response's action differs from its request's.
    public static let actionMismatch = RuleID(rawValue: "BRG105")
    /// A typed slot ran two captures at once instead of answering BUSY.
    public static let busyViolation = RuleID(rawValue: "BRG106")
    /// A capability request before any `capability.query`.
    public static let captureBeforeQuery = RuleID(rawValue: "BRG107")
    /// A request for a capability the latest query reported unsupported.
    public static let unsupportedCapabilityRequested = RuleID(rawValue: "BRG108")
    /// More than 50 requests open at once on one connection.
    public static let tooManyPending = RuleID(rawValue: "BRG109")
    /// One side's envelope timestamps go backwards by more than the tolerance.
    public static let timestampRegression = RuleID(rawValue: "BRG110")
    /// No `journey.complete` or `journey.error` before the session ended.
    public static let journeyIncomplete = RuleID(rawValue: "BRG111")
    /// A two-picture document journey completed without both sides.
    public static let dualCaptureIncomplete = RuleID(rawValue: "BRG112")
    /// The web sent requests and the host never sent anything.
    public static let hostSilent = RuleID(rawValue: "BRG113")
    /// The web sent requests and the host never announced `host.ready` first.
    public static let missingHostReady = RuleID(rawValue: "BRG114")
    /// A second `host.ready`, or capability answers that change without a lifecycle event.
    public static let hostReinit = RuleID(rawValue: "BRG115")
    /// The host answered success and the web re-sent the same request as if it never arrived.
    public static let responseNotConsumed = RuleID(rawValue: "BRG116")
    /// The web repeated a request that got a non-recoverable error.
    public static let retryAfterFatal = RuleID(rawValue: "BRG117")
    /// A capture requested after the query said the permission is denied or restricted.
    public static let captureDespiteDeniedPermission = RuleID(rawValue: "BRG118")
    /// The app went to the background while a capture was pending.
    public static let backgroundedDuringCapture = RuleID(rawValue: "BRG119")
    /// More than 3 BUSY answers on one slot within 2 seconds.
    public static let busyRetryStorm = RuleID(rawValue: "BRG120")
    /// A selfie whose biometric blobs are the preview image itself (stub camera view).
    public static let stubCaptureResult = RuleID(rawValue: "BRG121")
    /// The recorder lost bytes or packets (gap or drop).
    public static let captureGap = RuleID(rawValue: "BRG200")
    /// The recorder or the input reader reported an error (corrupt or truncated input).
    public static let captureError = RuleID(rawValue: "BRG201")
}

extension RuleCatalogue {
    /// Session-level rules checked by the analyzer (BRG100–BRG199) and capture rules
    /// raised from the recorder's events (BRG200–BRG249).
    public static let sessionRules: [Rule] = [
        Rule(id: .unansweredRequest, slug: "unanswered-request", severity: .error,
             summary: "A request got no final response before the session ended.",
             explanation: "The web side is still waiting, which is what a hung journey looks like. Check that the handler for this action calls complete(...) on every path (success, cancel, error, view dismissed), and that a custom capability's handler is registered on the host that answers.",
             source: "PROTOCOL.md §2 (exactly one final response)"),
        Rule(id: .lateResponse, slug: "late-response", severity: .warning,
             summary: "A final response arrived after the requester's timeout.",
             explanation: "The web side had already given up (TIMEOUT), so this answer is dropped. Defaults: capability.query 5,000 ms, camera.document.capture 120,000 ms, others 30,000 ms; override with --timeout ACTION=MS. Check what blocks the host (main-thread work, a capture view left open) or raise the web timeout.",
             source: "PROTOCOL.md §2 (timeouts)"),
        Rule(id: .unknownCorrelation, slug: "unknown-correlation", severity: .error,
             summary: "A response carries a correlationId that was never requested on this connection.",
             explanation: "The web side cannot resolve it. Check that the host copies the request's correlationId unchanged, and that the response goes to the web view that sent the request (a re-created WebView gets a new connection).",
             source: "PROTOCOL.md §2"),
        Rule(id: .duplicateResponse, slug: "duplicate-response", severity: .error,
             summary: "A request got a second final response.",
             explanation: "Each request gets exactly one final response. Check for a capture handler that calls complete(...) twice (for example on capture and again on dismiss) or a delegate that answers a request the router already answered.",
             source: "PROTOCOL.md §2 (respond once)"),
        Rule(id: .reusedCorrelationId, slug: "reused-correlation-id", severity: .error,
             summary: "A request reuses the correlationId of an earlier request on this connection.",
             explanation: "Responses are matched by correlationId, so the two requests cannot be told apart. Check that the web side generates a fresh UUID for every request, including retries.",
             source: "PROTOCOL.md §2"),
        Rule(id: .actionMismatch, slug: "action-mismatch", severity: .error,
             summary: "A response's action differs from its request's action.",
             explanation: "The web side may resolve the wrong promise or reject the answer. Check that the host builds responses from the request (same correlationId and action).",
             source: "PROTOCOL.md §2 (project rule for the action)"),
        Rule(id: .busyViolation, slug: "busy-violation", severity: .error,
             summary: "A typed capture slot accepted a second request while one was active.",
             explanation: "A second request on camera.document or camera.selfie while one is active must be answered at once with error BUSY (recoverable). Check the slot's activeRequest guard: two camera views fighting over one session is the usual result.",
             source: "PROTOCOL.md §2; 002_ea849eafe4848fbc.txt (busy rejection)"),
        Rule(id: .captureBeforeQuery, slug: "capture-before-query", severity: .warning,
             summary: "A capability was requested before any capability.query.",
             explanation: "The journey should ask what the host supports before using it (graceful degradation). Check the web journey's start-up: it should send capability.query after host.ready.",
             source: "002_ea849eafe4848fbc.txt; 003_f8209a36b7025dbd.txt (pre-launch capability checks)"),
        Rule(id: .unsupportedCapabilityRequested, slug: "unsupported-capability-requested", severity: .warning,
             summary: "A capability was requested after the latest query reported it unsupported.",
             explanation: "The web side ignored the capability query. Check the journey's fallback for a missing capability (for example skip NFC when nfc.read is supported: false) and, on the host, that the slot has a handler and isEnabled is true if it should be supported.",
             source: "002_ea849eafe4848fbc.txt (capability query response)"),
        Rule(id: .tooManyPending, slug: "too-many-pending", severity: .warning,
             summary: "More than 50 requests were open at once on one connection.",
             explanation: "Android warns above 50 pending requests and keeps only the last 200 messages. Check for a web loop that sends requests without waiting for answers, or a host that stopped answering.",
             source: "PROTOCOL.md §2 (Android pending limit)"),
        Rule(id: .timestampRegression, slug: "timestamp-regression", severity: .warning,
             summary: "One side's envelope timestamps went backwards by more than 1,000 ms.",
             explanation: "Compared message to message on one side of one connection; a tolerance of 1,000 ms absorbs messages built on different threads. Check the clock the side uses (a monotonic uptime or seconds instead of Unix epoch milliseconds) or a device clock change during the journey.",
             source: "project rule (PROTOCOL.md §1 timestamp)"),
        Rule(id: .journeyIncomplete, slug: "journey-incomplete", severity: .warning,
             summary: "The journey sent no journey.complete or journey.error before the session ended.",
             explanation: "The user left, the app was killed, or the journey hung. Check the journey steps for the last request and whether it was answered (an unanswered capture is the usual cause), and that the journey sends journey.complete or journey.error on every exit path.",
             source: "003_f8209a36b7025dbd.txt (journey events)"),
        Rule(id: .dualCaptureIncomplete, slug: "dual-capture-incomplete", severity: .error,
             summary: "A two-picture document journey completed without both the front and the back.",
             explanation: "With two pictures the journey captures side front, then side back (retakes allowed); with one picture it sends side single. Check the journey's confirmation step: the back capture was skipped, cancelled or failed and the journey still completed.",
             source: "001_f1b3bbd7d3a06193.txt (one picture or two pictures)"),
        Rule(id: .hostSilent, slug: "host-silent", severity: .error,
             summary: "The web sent requests and the host never sent anything back.",
             explanation: "Messages are not reaching native code. Check the message handler name (gbgBridge) for a typo, that the WebView is the one the host is attached to (not a bare WebView), and that the bootstrap script is injected at document start.",
             source: "GBG GO troubleshooting; PROTOCOL.md §5"),
        Rule(id: .missingHostReady, slug: "missing-host-ready", severity: .warning,
             summary: "The web sent requests before the host announced host.ready (or it never did).",
             explanation: "The journey should wait for host.ready before its first request. Check that the host sends host.ready once the bridge is attached, and that the web waits for it instead of a fixed delay.",
             source: "003_f8209a36b7025dbd.txt (lifecycle events)"),
        Rule(id: .hostReinit, slug: "host-reinit", severity: .warning,
             summary: "A second host.ready, or capability answers that changed without a lifecycle event.",
             explanation: "The host was re-created while the journey ran, which drops pending requests. Check that the host is created once per WebView (not in a SwiftUI body or on every view refresh) and kept alive for the whole journey.",
             source: "GBG GO troubleshooting; 003_f8209a36b7025dbd.txt"),
        Rule(id: .responseNotConsumed, slug: "response-not-consumed", severity: .error,
             summary: "The host answered success, then the web sent the same request again after its timeout, as if the answer never arrived.",
             explanation: "Native-to-web delivery is broken: the host answers but the page never receives it. Check the receive path (window.GBGBridge.receive exists, evaluateJavaScript runs on the main thread, the answer is not sent to a stale WebView). Retries after BUSY or other errors are normal and not this.",
             source: "GBG GO troubleshooting; PROTOCOL.md §5"),
        Rule(id: .retryAfterFatal, slug: "retry-after-fatal", severity: .warning,
             summary: "The web repeated a request that was answered with recoverable: false.",
             explanation: "A non-recoverable error will not change on retry. Check the journey's error handling: read error.recoverable and fall back (skip the step or end the journey) instead of retrying.",
             source: "004_8e460132a1151688.txt (error payload); PROTOCOL.md §4"),
        Rule(id: .captureDespiteDeniedPermission, slug: "capture-despite-denied-permission", severity: .warning,
             summary: "A capture was requested after the query said its permission is denied or restricted.",
             explanation: "The capture will fail. Check that the journey reads permissionState from capability.query and sends the user to Settings (denied) or explains the restriction (restricted) before capturing.",
             source: "002_ea849eafe4848fbc.txt (permission state)"),
        Rule(id: .backgroundedDuringCapture, slug: "backgrounded-during-capture", severity: .warning,
             summary: "The app went to the background while a capture was pending.",
             explanation: "On return the capture view may be gone while the request stays open. Check that the host completes or cancels the active request on background/foreground, and that the journey handles a cancelled capture.",
             source: "003_f8209a36b7025dbd.txt (lifecycle events)"),
        Rule(id: .busyRetryStorm, slug: "busy-retry-storm", severity: .warning,
             summary: "More than 3 BUSY answers on one slot within 2 seconds.",
             explanation: "The web retries a capture immediately while one is active, typically a double tap or a retry loop without back-off. Check that the capture button is disabled while a capture is pending and that BUSY retries wait.",
             source: "PROTOCOL.md §2 (BUSY)"),
        Rule(id: .stubCaptureResult, slug: "stub-capture-result", severity: .warning,
             summary: "A selfie result whose encryptedBlob, unencryptedBlob and preview are the same bytes.",
             explanation: "This is what the stub selfie camera view returns; it will fail server-side verification. Check that the build uses the real SmartCapture selfie view, not StubSelfieCameraView.",
             source: "000_62e02c413d50d9b8.txt (stub camera views)"),
        Rule(id: .captureGap, slug: "capture-gap", severity: .warning,
             summary: "The recorder lost bytes or packets (a gap in a stream, or drops).",
             explanation: "Some traffic is missing from the recording, so pairing findings near the gap may be false. Record again with a larger capture buffer (or through the proxy recorder), and check the interface and filter.",
             source: "project rule (ARCHITECTURE.md: nothing lost is ever silent)"),
        Rule(id: .captureError, slug: "capture-error", severity: .warning,
             summary: "The recorder or the input reader reported an error (a corrupt, truncated or unreadable record).",
             explanation: "Part of the input could not be read, so the analysis covers only what could. Check the finding's record number; a truncated archive usually means the recorder was killed before its last flush.",
             source: "project rule"),
    ]
}
