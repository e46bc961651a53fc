import BridgeJSON

extension WebInspectorTargets {
    /// How a page socket carries the page's protocol.
    package enum Framing: Sendable, Equatable {
        /// Not known yet: no target named, and the probe not answered (or answered too soon).
        case undecided
        /// The socket holds targets: commands go wrapped (`Target.sendMessageToTarget`).
        /// WebKitGTK's inspector server; an iOS WKWebView since the Target domain came (iOS
        /// 12.2), through ios_webkit_debug_proxy or the webinspector service.
        case wrapped
        /// The socket is the page: commands, answers and events go as they are. An iOS
        /// before the Target domain through ios_webkit_debug_proxy, which forwards each
        /// frame unchanged (read in its source, not tried).
        case direct
    }

    /// The one target of a direct socket: the page.
    package static let directTarget = "page"

    /// How long a socket that answered the probe unwrapped is given to name a target
    /// before it is taken for the page itself: 500 ms. WebKit names its targets as the
    /// socket opens, before it answers anything, so a wrapped socket says so well before.
    package static let directGraceNs: Int64 = 500_000_000

    /// The probe to send as the socket opens, at `now` (ns): an unwrapped, harmless
    /// `Runtime.evaluate` of `1`. A socket that holds targets refuses it ("'Runtime'
    /// domain was not found"); the page itself answers it. Its answer is taken here
    /// (``receive(_:)`` gives `.ignored` for it).
    package mutating func probe(now: Int64) -> [UInt8] {
        let (id, bytes) = outer("Runtime.evaluate", ["expression": "1", "returnByValue": true])
        probeState = (id, now, false)
        return bytes
    }

    /// Decides, at `now` (ns), that the socket is the page itself: true once, when the
    /// probe was answered without an error, no target was named, and ``directGraceNs``
    /// passed since the probe left. ``directTarget`` is then known, and commands for it
    /// go unwrapped.
    package mutating func decide(now: Int64) -> Bool {
        guard framing == .undecided, let p = probeState, p.answered, now &- p.sentAt >= Self.directGraceNs else { return false }
        framing = .direct
        known[Self.directTarget] = Info(id: Self.directTarget, type: "page", provisional: false, paused: false)
        return true
    }
}
