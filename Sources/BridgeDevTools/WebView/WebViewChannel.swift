import BridgeJSON

/// The framing of one page socket, DevTools or WebKit inspector, as a pure value type:
/// commands out with their ids, answers and events in (docs/WEBVIEW-TARGETS.md).
///
/// DevTools page sockets take commands as they are. WebKit's page sockets mostly hold
/// targets (``WebInspectorTargets``): a command goes wrapped to the page target. A WebKit
/// socket that is the page itself (no Target domain) is told apart by what it says: it
/// answers the probe sent on opening (``opened(now:)``) and names no target in time
/// (``tick(now:)``); its commands then go as they are. Commands wait until the page
/// target is known (``isReady``).
///
/// A cross-site navigation runs in a new web process (WKWebView, and the shell: docs/WEBKIT.md),
/// which WebKit shows as a provisional target that does not carry the bootstrap script over.
/// The channel asks WebKit to pause new targets (``opened(now:)``); a provisional page target
/// is armed as the page target was (the console, the page agent, ``bootstrap``) and resumed
/// once the bootstrap is set, so the new process's first document runs the tap; the
/// commit makes it the page target. What the channel sends of its own accord waits in
/// ``takeSends()``.
struct WebViewChannel: Sendable {
    /// What one socket message was.
    enum Incoming: Sendable, Equatable {
        /// The answer to command `id`: its `result`, or the error's message.
        case answer(id: Int, result: JSONObject?, error: String?)
        /// An event of the page.
        case event(method: String, params: JSONObject)
        /// WebKit named the page target: commands can go.
        case ready
        /// The page moved to another process (a provisional target committed): commands
        /// sent to the old one will not be answered.
        case abandoned(ids: [Int], why: String)
        /// The page went away (its process ended, the target was destroyed).
        case gone(String)
        /// Nothing of use.
        case ignored
        /// A message that could not be used.
        case malformed(String)
    }

    let kind: WebViewSpec.Kind
    var wire = WebInspectorTargets()
    /// WebKit's page target, once created.
    private(set) var target: String?
    private var nextId = 0
    /// The tap, set as the bootstrap script of every provisional page target (nil: not yet enabled).
    var bootstrap: String?
    /// Provisional page targets being armed: the inner id of their `Page.setBootstrapScript`
    /// (resume after its answer), or nil once resumed.
    private(set) var provisional: [String: Int?] = [:]
    private var sends: [[UInt8]] = []
    /// Commands awaiting answers, per target: inner id -> the id the caller was given
    /// (inner ids restart with each target; the caller's are unique on the socket).
    private var routes: [String: [Int: Int]] = [:]
    private let parser = JSONParser(limits: JSONLimits(maxInputBytes: CDPLimits.maxMessageBytes, maxDepth: 80,
                                                       maxStringBytes: CDPLimits.maxMessageBytes))

    init(kind: WebViewSpec.Kind) {
        self.kind = kind
    }

    /// Whether commands can be sent.
    var isReady: Bool { kind == .cdp || target != nil }

    /// The socket opened at `now` (ns): for WebKit, the probe for a socket that is the page
    /// itself, and the request to pause the targets WebKit creates from now on (a page
    /// itself refuses it: harmless). In ``takeSends()``.
    mutating func opened(now: Int64) {
        guard kind == .webkit else { return }
        sends.append(wire.outer("Target.setPauseOnStart", ["pauseOnStart": true]).bytes)
        sends.append(wire.probe(now: now))
    }

    /// Time passed: `.ready` once a WebKit socket is known to be the page itself (it
    /// answered the probe and named no target within ``WebInspectorTargets/directGraceNs``).
    mutating func tick(now: Int64) -> Incoming? {
        guard kind == .webkit, target == nil, wire.decide(now: now) else { return nil }
        target = WebInspectorTargets.directTarget
        return .ready
    }

    /// What the channel sends of its own accord (the probe, arming and resuming targets), in order; taken once.
    mutating func takeSends() -> [[UInt8]] {
        defer { sends = [] }
        return sends
    }

    /// Command `method` with `params`, and its id; nil while WebKit has not named the page target.
    mutating func command(_ method: String, _ params: JSONValue = [:]) -> (id: Int, bytes: [UInt8])? {
        switch kind {
        case .cdp:
            nextId += 1
            let bytes = JSONWriter().bytes(.object(JSONObject([.init(key: "id", value: .integer(Int64(nextId))),
                                                               .init(key: "method", value: .string(method)),
                                                               .init(key: "params", value: params)])))
            return (nextId, bytes)
        case .webkit:
            guard let target else { return nil }
            let (inner, bytes) = wire.wrap(target, method, params)
            nextId += 1
            routes[target, default: [:]][inner] = nextId
            return (nextId, bytes)
        }
    }

    /// One socket message.
    mutating func receive(_ bytes: [UInt8]) -> Incoming {
        switch kind {
        case .cdp:
            guard case .object(let message)? = try? parser.parse(bytes).value else {
                return .malformed("DevTools sent a message that is not a JSON object")
            }
            return classify(message)
        case .webkit:
            switch wire.receive(bytes) {
            case .created(let info):
                return created(info)
            case .committed(let old, let new):
                guard old == nil || old == target || target == nil else { return .ignored }
                provisional.removeValue(forKey: new)
                let first = target == nil
                let abandoned = target.flatMap { routes.removeValue(forKey: $0) }.map { Array($0.values).sorted() } ?? []
                target = new
                if first { return .ready }
                return abandoned.isEmpty ? .ignored : .abandoned(ids: abandoned, why: "the page moved to another web process "
                    + "(a cross-site navigation) before answering")
            case .destroyed(let id):
                provisional.removeValue(forKey: id)
                routes.removeValue(forKey: id)
                return id == target ? .gone("the page's target \(id) went away (its web process ended or the page closed)") : .ignored
            case .fromTarget(let id, let message):
                if id == target {
                    let incoming = classify(message)
                    guard case .answer(let inner, let result, let error) = incoming else { return incoming }
                    guard let caller = routes[id]?.removeValue(forKey: inner) else { return .ignored }
                    return .answer(id: caller, result: result, error: error)
                }
                guard let armed = provisional[id] else { return .ignored }
                if let armed, message["id"]?.numberValue.flatMap({ Int($0.lexeme) }) == armed {
                    provisional[id] = .some(nil)
                    sends.append(wire.outer("Target.resume", ["targetId": .string(id)]).bytes)
                    return .ignored
                }
                // The next process's events before its commit (its document's tap lines) are the page's.
                return message["id"] == nil ? classify(message) : .ignored
            case .answer, .ignored:
                return .ignored
            case .malformed(let why):
                return .malformed(why)
            }
        }
    }

    /// A new target: the first page target is the page; a provisional one (a navigation to
    /// another process) is armed and resumed; anything else paused is let go.
    private mutating func created(_ info: WebInspectorTargets.Info) -> Incoming {
        func resume() { sends.append(wire.outer("Target.resume", ["targetId": .string(info.id)]).bytes) }
        guard info.type == "page" else {
            if info.paused { resume() }
            return .ignored
        }
        guard target != nil else {
            // The page as the link attaches (the link enables it and installs the tap itself).
            target = info.id
            if info.paused { resume() }
            return .ready
        }
        guard info.provisional, let bootstrap else {
            if info.paused { resume() }
            return .ignored
        }
        guard provisional.count < 16 else {
            // Navigations started and never committed nor destroyed: WebKit's business, not a reason to hold more.
            if info.paused { resume() }
            return .ignored
        }
        var armed: [[UInt8]] = [wire.wrap(info.id, "Console.enable").bytes, wire.wrap(info.id, "Page.enable").bytes]
        let (id, bytes) = wire.wrap(info.id, "Page.setBootstrapScript", ["source": .string(bootstrap)])
        armed.append(bytes)
        sends.append(contentsOf: armed)
        provisional[info.id] = info.paused ? .some(id) : .some(nil)
        return .ignored
    }

    private func classify(_ message: JSONObject) -> Incoming {
        if let id = message["id"]?.numberValue.flatMap({ Int($0.lexeme) }) {
            let error = message["error"]?.objectValue.map { $0["message"]?.stringValue ?? "error" }
            return .answer(id: id, result: message["result"]?.objectValue, error: error)
        }
        guard let method = message["method"]?.stringValue else { return .ignored }
        let params = message["params"]?.objectValue ?? JSONObject()
        switch method {
        case "Inspector.targetCrashed":
            return .gone("the page crashed")
        case "Inspector.detached":
            return .gone("the inspector detached (\(params["reason"]?.stringValue ?? "no reason given"))")
        default:
            return .event(method: method, params: params)
        }
    }
}
