import BridgeArchive
import BridgeJSON

/// `record --webkit`'s protocol logic for one page socket of WebKit's inspector, as a
/// value type: socket messages in, ``Action``s out (docs/CDP.md, "WebKit"). The driver
/// (``WebInspectorRecordingSource``) only moves bytes.
///
/// On open it asks WebKit to pause new targets (`Target.setPauseOnStart`); for each page
/// target (the page's process, and each provisional target a cross-site navigation
/// creates) it enables the console, sets the tap as the bootstrap script
/// (`Page.setBootstrapScript`: before the app's user scripts and the page's first script,
/// in every later document), evaluates it in the document already there (recorded from
/// that moment on, unless the page's own tap owns it: ``WebInspectorTapScript``), and
/// resumes a paused target once the bootstrap is set. The tap's lines arrive as console
/// messages (``WebInspectorSession/console(_:_:now:)``).
///
/// Connections: `p<page>.t<target>.d<document>`, one per document that ran the tap (a
/// reload or navigation starts the next `d`; a navigation to another process the next
/// `t`), opened at the document's first tap message, closed when a new top document
/// replaces it, its target goes, or the recording stops.
package struct WebInspectorSession: Sendable {
    /// What the driver does.
    package enum Action: Sendable, Equatable {
        /// Send this on the socket.
        case send([UInt8])
        /// Write a record.
        case record(time: Int64, direction: ArchiveDirection, connection: String, payload: [UInt8])
        /// Write an event.
        case event(ArchiveEvent)
        /// Tell the user (a log line): something not worth an `error` event.
        case note(String)
    }

    struct Target {
        var label: Int
        var documents = 0
        /// Inner command id -> what it was.
        var pending: [Int: String] = [:]
        /// The inner id of `Page.setBootstrapScript` on a paused target: resume after its answer.
        var resumeAfter: Int?
    }
    struct Document {
        var conn: String
        var target: String
        var top: Bool
        var url: String
        var seq: Int
    }

    /// The page socket's label (the `p` in connection names).
    package let page: Int
    /// The page's URL as the page list gave it.
    package let pageURL: String
    /// The console prefix of this recorder's messages.
    package let prefix: String
    let script: String
    var wire: WebInspectorTargets
    var targets: [String: Target] = [:]
    var documents: [String: Document] = [:]    // document token -> state
    var targetCount = 0
    /// Page targets recorded at once; one created past it is resumed, unrecorded, with a
    /// `drop` event (docs/CDP.md). Default ``CDPSession/defaultMaxTargets`` (256).
    package var maxTargets = CDPSession.defaultMaxTargets
    /// Connections currently open (conn -> URL).
    package internal(set) var openConnections: [String: String] = [:]
    /// Distinct connections opened so far.
    package internal(set) var connectionsOpened = 0

    /// A session for page socket `page` (`pageURL` from the page list). `prefix` must be
    /// unguessable by the page (the driver draws it at random).
    package init(page: Int, pageURL: String, tapSource: String, prefix: String,
                 maxMessageBytes: Int = WebInspectorTargets.defaultMaxMessageBytes) {
        self.page = page
        self.pageURL = pageURL
        self.prefix = prefix
        script = WebInspectorTapScript.script(tapSource: tapSource, prefix: prefix)
        wire = WebInspectorTargets(maxMessageBytes: maxMessageBytes)
    }

    /// The socket opened at `now` (ns, the clock of ``tick(now:)``): new targets are to
    /// pause, and the probe asks whether the socket is the page itself
    /// (``WebInspectorTargets/Framing``).
    package mutating func opened(now: Int64) -> [Action] {
        [.send(wire.outer("Target.setPauseOnStart", ["pauseOnStart": true]).bytes), .send(wire.probe(now: now))]
    }

    /// Time passed (called at least every 100 ms): a socket that answered the probe as the
    /// page and named no target within ``WebInspectorTargets/directGraceNs`` is the page
    /// itself (an iOS before the Target domain, through ios_webkit_debug_proxy): it is
    /// attached as one running page target whose commands go unwrapped.
    package mutating func tick(now: Int64) -> [Action] {
        guard wire.decide(now: now) else { return [] }
        return [.note("the inspector's socket for \(pageURL) is the page itself (no Target domain): commands go unwrapped")]
            + attach(WebInspectorTargets.Info(id: WebInspectorTargets.directTarget, type: "page", provisional: false, paused: false), now: now)
    }

    /// One message from the socket, received at `now` (wall clock, ns).
    package mutating func receive(_ bytes: [UInt8], now: Int64) -> [Action] {
        switch wire.receive(bytes) {
        case .created(let info):
            return attach(info, now: now)
        case .destroyed(let id):
            return closeTarget(id, reason: "target closed", now: now)
        case .committed(let old, _):
            return old.map { closeTarget($0, reason: "documents replaced (navigation to another process)", now: now) } ?? []
        case .fromTarget(let id, let message):
            return fromTarget(id, message, now: now)
        case .answer(_, let error):
            // Before the socket is known to hold targets, a refusal is the page itself refusing the Target domain.
            guard wire.framing == .wrapped else { return [] }
            return error.map { [.note("the inspector refused a Target command: \($0)")] } ?? []
        case .ignored:
            return []
        case .malformed(let reason):
            return [.event(ArchiveEvent(time: now, kind: .error, reason: reason))]
        }
    }

    /// The socket closed: every open connection of the page closes.
    package mutating func closed(reason: String, now: Int64) -> [Action] {
        closeAll(reason: reason, now: now)
    }

    /// The recording ends.
    package mutating func finish(now: Int64) -> [Action] {
        closeAll(reason: "recording stopped", now: now)
    }

    // MARK: targets

    mutating func attach(_ info: WebInspectorTargets.Info, now: Int64) -> [Action] {
        guard info.type == "page" else {
            return info.paused ? [.send(wire.outer("Target.resume", ["targetId": .string(info.id)]).bytes)] : []
        }
        guard targets.count < maxTargets else {
            // Past the cap: let it run, unrecorded (docs/CDP.md).
            var actions: [Action] = info.paused ? [.send(wire.outer("Target.resume", ["targetId": .string(info.id)]).bytes)] : []
            actions.append(.event(ArchiveEvent(time: now, kind: .drop, count: 1,
                                               reason: "a page target not recorded: \(maxTargets) targets are recorded already "
                                                   + "(the recorder's cap, docs/CDP.md)")))
            return actions
        }
        targetCount += 1
        var target = Target(label: targetCount)
        var actions: [Action] = []
        func send(_ method: String, _ params: JSONValue = [:], what: String) {
            let (id, bytes) = wire.wrap(info.id, method, params)
            target.pending[id] = what
            actions.append(.send(bytes))
        }
        send("Console.enable", what: "enabling the console")
        send("Page.enable", what: "enabling the page agent")
        send("Page.setBootstrapScript", ["source": .string(script)], what: "installing the tap (bootstrap script)")
        if info.paused {
            target.resumeAfter = target.pending.keys.max()
        } else {
            send("Runtime.evaluate", ["expression": .string(script), "returnByValue": true],
                 what: "installing the tap in the current document")
        }
        targets[info.id] = target
        return actions
    }

    mutating func fromTarget(_ id: String, _ message: JSONObject, now: Int64) -> [Action] {
        if let inner = message["id"]?.numberValue.flatMap({ Int($0.lexeme) }) {
            return answer(id, inner, message, now: now)
        }
        guard let method = message["method"]?.stringValue else { return [] }
        switch method {
        case "Console.messageAdded":
            guard let m = message["params"]?.objectValue?["message"]?.objectValue,
                  let text = m["text"]?.stringValue, text.hasPrefix(prefix + " ") else { return [] }
            return console(id, Array(text.utf8), now: now)
        default:
            return []
        }
    }

    mutating func answer(_ id: String, _ inner: Int, _ message: JSONObject, now: Int64) -> [Action] {
        guard var target = targets[id], let what = target.pending.removeValue(forKey: inner) else { return [] }
        var actions: [Action] = []
        if target.resumeAfter == inner {
            target.resumeAfter = nil
            actions.append(.send(wire.outer("Target.resume", ["targetId": .string(id)]).bytes))
        }
        targets[id] = target
        if let error = message["error"]?.objectValue {
            let text = error["message"]?.stringValue ?? "error"
            actions.append(.event(ArchiveEvent(time: now, kind: .error, reason: "WebKit's inspector at \(pageURL) refused \(what): \(text)")))
        } else if what == "installing the tap in the current document" {
            let value = message["result"]?.objectValue?["result"]?.objectValue?["value"]?.stringValue
            if value == WebInspectorTapScript.present {
                actions.append(.note("the document already loaded in \(pageURL) has a tap of its own (the app's): it is not "
                                     + "recorded; its next documents are (reload the page to record it from the start)"))
            } else if value == nil || (value != WebInspectorTapScript.installed && value != WebInspectorTapScript.redirected) {
                actions.append(.note("the tap did not install in the document already loaded in \(pageURL) (\(value ?? "no answer")); "
                                     + "its next documents are recorded"))
            }
        }
        return actions
    }

    mutating func closeTarget(_ id: String, reason: String, now: Int64) -> [Action] {
        targets.removeValue(forKey: id)
        let gone = documents.filter { $0.value.target == id }.sorted { $0.value.conn < $1.value.conn }
        return gone.flatMap { close($0.key, reason: reason, now: now) }
    }

    mutating func closeAll(reason: String, now: Int64) -> [Action] {
        documents.sorted { $0.value.conn < $1.value.conn }.flatMap { close($0.key, reason: reason, now: now) }
    }

    mutating func close(_ token: String, reason: String, now: Int64) -> [Action] {
        guard let doc = documents.removeValue(forKey: token), openConnections.removeValue(forKey: doc.conn) != nil else { return [] }
        return [.event(ArchiveEvent(time: now, kind: .close, connection: doc.conn,
                                    reason: doc.url.isEmpty ? reason : "\(reason): \(doc.url)"))]
    }
}
