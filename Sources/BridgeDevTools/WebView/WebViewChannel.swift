import BridgeJSON

/// The framing of one page socket, DevTools or WebKit inspector, as a pure value type:
/// commands out with their ids, answers and events in (docs/WEBVIEW-TARGETS.md).
///
/// DevTools page sockets take commands as they are. WebKit's page sockets mostly hold
/// targets (``WebInspectorTargets``): a command goes wrapped to the page target, and the
/// channel follows a provisional target that a cross-process navigation commits. A WebKit
/// socket that is the page itself (no Target domain) is told apart by what it says: it
/// answers the probe sent on opening (``opened(now:)``) and names no target in time
/// (``tick(now:)``); its commands then go as they are. Commands wait until the page
/// target is known (``isReady``).
struct WebViewChannel: Sendable {
    /// What one socket message was.
    enum Incoming: Sendable, Equatable {
        /// The answer to command `id`: its `result`, or the error's message.
        case answer(id: Int, result: JSONObject?, error: String?)
        /// An event of the page.
        case event(method: String, params: JSONObject)
        /// WebKit named the page target: commands can go.
        case ready
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
    private let parser = JSONParser(limits: JSONLimits(maxInputBytes: CDPLimits.maxMessageBytes, maxDepth: 80,
                                                       maxStringBytes: CDPLimits.maxMessageBytes))

    init(kind: WebViewSpec.Kind) {
        self.kind = kind
    }

    /// Whether commands can be sent.
    var isReady: Bool { kind == .cdp || target != nil }

    /// What to send as the socket opens at `now` (ns): WebKit's probe for a socket that
    /// is the page itself; nil for DevTools.
    mutating func opened(now: Int64) -> [UInt8]? {
        kind == .webkit ? wire.probe(now: now) : nil
    }

    /// Time passed: `.ready` once a WebKit socket is known to be the page itself (it
    /// answered the probe and named no target within ``WebInspectorTargets/directGraceNs``).
    mutating func tick(now: Int64) -> Incoming? {
        guard kind == .webkit, target == nil, wire.decide(now: now) else { return nil }
        target = WebInspectorTargets.directTarget
        return .ready
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
            let (id, bytes) = wire.wrap(target, method, params)
            return (id, bytes)
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
                guard info.type == "page", !info.provisional || target == nil else { return .ignored }
                let first = target == nil
                target = info.id
                return first ? .ready : .ignored
            case .committed(let old, let new):
                guard old == nil || old == target else { return .ignored }
                target = new
                return .ignored
            case .destroyed(let id):
                return id == target ? .gone("the page's target \(id) went away (its web process ended or the page closed)") : .ignored
            case .fromTarget(let id, let message):
                return id == target ? classify(message) : .ignored
            case .answer, .ignored:
                return .ignored
            case .malformed(let why):
                return .malformed(why)
            }
        }
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
