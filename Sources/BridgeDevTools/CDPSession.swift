import BridgeCapture
import BridgeArchive
import BridgeJSON

/// The DevTools recorder's protocol logic as a value type: CDP messages and clock ticks
/// in, ``Action``s out (commands to send, records and events to write). The NIO driver
/// (``CDPRecordingSource``) only moves bytes; everything this recorder decides is here
/// and tested without a browser (docs/CDP.md).
///
/// One session serves one or more DevTools WebSocket connections (``Channel``): the
/// browser endpoint (auto-attach to every page and iframe, flattened sessions, paused
/// until the tap is installed) or one connection per page (page-only endpoints such as
/// Android WebViews). Per attached target it adds the binding, installs the tap before
/// any page script (`Page.addScriptToEvaluateOnNewDocument`) and in the document that
/// is already there (`Runtime.evaluate`), auto-attaches to its out-of-process iframes,
/// then lets it run. Each JavaScript context of a frame (one document) is one archive
/// connection (`conn`), named `t<target>.f<frame>.d<document>`, opened when its context
/// is created and closed when it goes away, with the URL.
public struct CDPSession: Sendable {
    /// A DevTools WebSocket connection, numbered by the driver.
    public typealias Channel = Int

    /// What the driver does for the session.
    public enum Action: Sendable, Equatable {
        /// Send this CDP message on the channel.
        case send(Channel, [UInt8])
        /// Write a record.
        case record(time: Int64, direction: ArchiveDirection, connection: String, payload: [UInt8])
        /// Write an event.
        case event(ArchiveEvent)
    }

    /// How a channel was opened.
    public enum ChannelKind: Sendable, Equatable {
        /// The browser endpoint (`/json/version`'s `webSocketDebuggerUrl`): auto-attach.
        case browser
        /// One page's endpoint (`/json/list`), with its target id and URL.
        case page(targetId: String, url: String)
    }

    /// The binding the tap reports through (random per recorder, so a page cannot guess it).
    public let bindingName: String
    /// The tap's JavaScript, already wrapped with its configuration.
    let tapScript: String
    /// Only pages whose URL contains this are recorded (iframes of recorded pages always are).
    public let targetFilter: String?

    struct Target {
        var label: Int
        var id: String
        var type: String
        var url: String
        var frames: [String: Int] = [:]   // frameId -> frame label
        var documents: [String: Int] = [:] // frameId -> documents seen
    }
    struct Context {
        var conn: String
        var frame: String
        var origin: String
    }
    struct SessionKey: Hashable {
        var channel: Channel
        var session: String   // "" for a page channel's own session
    }

    var nextId = 0
    var pending: [Int: String] = [:]             // command id -> what it was, for error messages
    var targets: [SessionKey: Target] = [:]
    var contexts: [SessionKey: [Int: Context]] = [:]
    var frameURLs: [String: String] = [:]
    /// frame id -> parent frame id (`Page.frameAttached`, `Page.frameNavigated`, any session).
    var frameParents: [String: String] = [:]
    /// frame id -> its current document's context (across sessions: out-of-process iframes).
    var frameContexts: [String: Context] = [:]
    var targetCount = 0
    /// Targets whose tap installation DevTools has acknowledged (by label).
    var readyTargets: Set<Int> = []
    var parser = JSONParser(limits: JSONLimits(maxInputBytes: CDPLimits.maxMessageBytes, maxDepth: 80,
                                               maxStringBytes: CDPLimits.maxMessageBytes))
    /// Targets (pages and iframes) recorded at once; a target attached past it is let run
    /// and detached, unrecorded, with a `drop` event. Every attached target costs the
    /// recorder its frames, contexts and the tap's traffic: a page opening iframes without
    /// end cannot grow that without bound (docs/CDP.md). Default ``defaultMaxTargets``.
    public var maxTargets = CDPSession.defaultMaxTargets
    /// 256 targets.
    public static let defaultMaxTargets = 256
    /// Targets left unrecorded because of ``maxTargets``.
    public internal(set) var targetsRefused = 0
    /// Connections currently open (for the stop).
    public internal(set) var openConnections: [String: String] = [:] // conn -> url
    /// Distinct connections opened so far.
    var connectionsOpened = 0

    /// Creates a session. `tapSource` is the tap file's text (tools/taps/js/bridge-tap.js).
    public init(tapSource: String, bindingName: String, targetFilter: String? = nil) {
        self.bindingName = bindingName
        self.targetFilter = targetFilter
        self.tapScript = "(function (tapConfig) {\n" + tapSource + "\n})({binding: \"" + bindingName + "\"});"
    }

    // MARK: commands

    mutating func command(_ channel: Channel, session: String?, _ method: String, _ params: JSONValue = [:],
                          what: String? = nil) -> Action {
        nextId += 1
        pending[nextId] = what ?? method
        var members: [JSONObject.Member] = [.init(key: "id", value: .integer(Int64(nextId))),
                                            .init(key: "method", value: .string(method)),
                                            .init(key: "params", value: params)]
        if let session, !session.isEmpty { members.append(.init(key: "sessionId", value: .string(session))) }
        return .send(channel, JSONWriter().bytes(.object(JSONObject(members))))
    }

    /// A channel opened: what to send first.
    public mutating func channelOpened(_ channel: Channel, kind: ChannelKind, now: Int64) -> [Action] {
        switch kind {
        case .browser:
            return [command(channel, session: nil, "Target.setDiscoverTargets", ["discover": true]),
                    command(channel, session: nil, "Target.setAutoAttach",
                            ["autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true])]
        case .page(let id, let url):
            return attach(SessionKey(channel: channel, session: ""), targetId: id, type: "page", url: url,
                          waiting: false, now: now)
        }
    }

    /// Commands that install the tap in a newly attached target, then let it run.
    mutating func attach(_ key: SessionKey, targetId: String, type: String, url: String, waiting: Bool,
                         now: Int64) -> [Action] {
        _ = waiting
        targetCount += 1
        targets[key] = Target(label: targetCount, id: targetId, type: type, url: url)
        let s = key.session
        let c = key.channel
        var actions: [Action] = [
            command(c, session: s, "Runtime.addBinding", ["name": .string(bindingName)]),
            command(c, session: s, "Page.enable"),
            command(c, session: s, "Page.addScriptToEvaluateOnNewDocument", ["source": .string(tapScript)],
                    what: "installing the tap in \(url)"),
            command(c, session: s, "Runtime.enable"),
        ]
        // A document that already exists gets the tap now: a loaded page (it records from
        // here on), and a new tab whose document was created before the target paused
        // (seen with tabs opened by /json/new). The tap installs itself once per document.
        actions.append(command(c, session: s, "Runtime.evaluate", ["expression": .string(tapScript)],
                               what: "evaluating the tap in the current document of \(url)"))
        actions.append(command(c, session: s, "Target.setAutoAttach",
                               ["autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true]))
        actions.append(command(c, session: s, "Runtime.runIfWaitingForDebugger", what: "run \(targetCount)"))
        return actions
    }

    /// Whether a page target is recorded.
    func matches(type: String, url: String) -> Bool {
        if type == "iframe" { return true }
        guard type == "page" else { return false }
        guard let targetFilter else { return true }
        return url.contains(targetFilter)
    }
}

/// Limits of the DevTools recorder.
enum CDPLimits {
    /// The largest CDP message accepted: 256 MiB (a 20 MB base64 image crosses the
    /// binding as a tap line escaped inside a JSON string, so twice its size is possible).
    public static let maxMessageBytes = 256 << 20
}

extension CDPSession {
    /// The first attached page (channel and session), for `--launch` to navigate.
    var firstPageChannel: (Channel, String)? {
        targets.filter { $0.value.type == "page" && readyTargets.contains($0.value.label) }.min { $0.value.label < $1.value.label }.map { ($0.key.channel, $0.key.session) }
    }

    /// `Page.navigate` to `url` on a page (sent after the tap's installation, so the
    /// new document gets the tap before its scripts).
    mutating func navigate(_ page: (Channel, String), to url: String) -> [UInt8] {
        guard case .send(_, let bytes) = command(page.0, session: page.1, "Page.navigate", ["url": .string(url)]) else { return [] }
        return bytes
    }
}
