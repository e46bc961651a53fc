import BridgeCapture
import BridgeArchive
import BridgeJSON
import BridgeClock

extension CDPSession {
    /// One message from the DevTools connection `channel`, received at `now` (wall clock, ns).
    public mutating func receive(_ channel: Channel, _ bytes: [UInt8], now: Int64) -> [Action] {
        let value: JSONValue
        do {
            value = try parser.parse(bytes).value
        } catch {
            return [.event(ArchiveEvent(time: now, kind: .error, bytes: bytes.count,
                                        reason: "DevTools sent a message that is not JSON (\(error)); skipped"))]
        }
        guard case .object(let message) = value else {
            return [.event(ArchiveEvent(time: now, kind: .error, reason: "DevTools sent a \(value.kindName), not an object; skipped"))]
        }
        if let id = message["id"]?.numberValue.flatMap({ Int($0.lexeme) }) {
            return response(id: id, message)
        }
        guard let method = message["method"]?.stringValue else { return [] }
        let key = SessionKey(channel: channel, session: message["sessionId"]?.stringValue ?? "")
        let params = message["params"]?.objectValue ?? JSONObject()
        switch method {
        case "Runtime.bindingCalled":
            return bindingCalled(key, params, now: now)
        case "Target.attachedToTarget":
            return attachedToTarget(channel, params, now: now)
        case "Runtime.executionContextCreated":
            return contextCreated(key, params, now: now)
        case "Runtime.executionContextDestroyed":
            guard let id = params["executionContextId"]?.numberValue.flatMap({ Int($0.lexeme) }) else { return [] }
            return closeContext(key, id: id, reason: "document unloaded", now: now)
        case "Runtime.executionContextsCleared":
            return closeAll(key, reason: "documents replaced (navigation or reload)", now: now, forget: false)
        case "Page.frameNavigated":
            if let frame = params["frame"]?.objectValue, let id = frame["id"]?.stringValue {
                if let url = frame["url"]?.stringValue { frameURLs[id] = url }
                if let parent = frame["parentId"]?.stringValue { frameParents[id] = parent }
            }
            return []
        case "Page.frameAttached":
            if let id = params["frameId"]?.stringValue, let parent = params["parentFrameId"]?.stringValue {
                frameParents[id] = parent
            }
            return []
        case "Target.detachedFromTarget":
            let gone = SessionKey(channel: channel, session: params["sessionId"]?.stringValue ?? "")
            return closeAll(gone, reason: "target detached", now: now, forget: true)
        case "Inspector.targetCrashed":
            return closeAll(key, reason: "target crashed", now: now, forget: false)
        case "Inspector.detached":
            let reason = params["reason"]?.stringValue ?? "unknown"
            return closeAll(key, reason: "target detached (\(reason))", now: now, forget: true)
        case "Target.targetCrashed":
            guard let id = params["targetId"]?.stringValue else { return [] }
            let status = params["status"]?.stringValue ?? "unknown"
            let code = params["errorCode"]?.numberValue?.lexeme ?? "?"
            return closeTarget(id: id, channel: channel, reason: "target crashed (\(status), error code \(code))", now: now)
        case "Target.targetDestroyed":
            guard let id = params["targetId"]?.stringValue else { return [] }
            return closeTarget(id: id, channel: channel, reason: "target closed", now: now)
        default:
            return []
        }
    }

    /// The channel closed (browser gone, page closed, network): every connection on it closes.
    public mutating func channelClosed(_ channel: Channel, reason: String, now: Int64) -> [Action] {
        var actions: [Action] = []
        for key in targets.keys.filter({ $0.channel == channel }).sorted(by: { targets[$0]!.label < targets[$1]!.label }) {
            actions += closeAll(key, reason: reason, now: now, forget: true)
        }
        return actions
    }

    /// The recording ends: close events for every open connection.
    public mutating func finish(now: Int64) -> [Action] {
        var actions: [Action] = []
        for key in targets.keys.sorted(by: { targets[$0]!.label < targets[$1]!.label }) {
            actions += closeAll(key, reason: "recording stopped", now: now, forget: true)
        }
        return actions
    }

    // MARK: handlers

    mutating func response(id: Int, _ message: JSONObject) -> [Action] {
        guard let what = pending.removeValue(forKey: id) else { return [] }
        if what.hasPrefix("run "), let label = Int(what.dropFirst(4)) { readyTargets.insert(label) }
        guard let error = message["error"]?.objectValue else { return [] }
        // Only the tap's installation matters; other commands may fail on some targets.
        guard what.hasPrefix("installing the tap") else { return [] }
        let text = error["message"]?.stringValue ?? "error"
        return [.event(ArchiveEvent(time: WallClock.now.nanoseconds, kind: .error,
                                    reason: "DevTools refused \(what): \(text)"))]
    }

    mutating func attachedToTarget(_ channel: Channel, _ params: JSONObject, now: Int64) -> [Action] {
        guard let session = params["sessionId"]?.stringValue, let info = params["targetInfo"]?.objectValue else { return [] }
        let type = info["type"]?.stringValue ?? "other"
        let url = info["url"]?.stringValue ?? ""
        let waiting = params["waitingForDebugger"]?.boolValue ?? false
        let key = SessionKey(channel: channel, session: session)
        guard matches(type: type, url: url) else {
            var actions: [Action] = []
            if waiting { actions.append(command(channel, session: session, "Runtime.runIfWaitingForDebugger")) }
            actions.append(command(channel, session: nil, "Target.detachFromTarget", ["sessionId": .string(session)]))
            return actions
        }
        guard targets.count < maxTargets else {
            targetsRefused += 1
            var actions: [Action] = []
            if waiting { actions.append(command(channel, session: session, "Runtime.runIfWaitingForDebugger")) }
            actions.append(command(channel, session: nil, "Target.detachFromTarget", ["sessionId": .string(session)]))
            actions.append(.event(ArchiveEvent(time: now, kind: .drop, count: 1,
                                               reason: "\(type) \(url) not recorded: \(maxTargets) targets are recorded "
                                                   + "already (the recorder's cap, docs/CDP.md)")))
            return actions
        }
        return attach(key, targetId: info["targetId"]?.stringValue ?? session, type: type, url: url,
                      waiting: waiting, now: now)
    }

    mutating func contextCreated(_ key: SessionKey, _ params: JSONObject, now: Int64) -> [Action] {
        guard var target = targets[key], let context = params["context"]?.objectValue,
              let id = context["id"]?.numberValue.flatMap({ Int($0.lexeme) }) else { return [] }
        let aux = context["auxData"]?.objectValue
        guard aux?["isDefault"]?.boolValue ?? true else { return [] }  // isolated worlds (extensions) are not the page
        let frame = aux?["frameId"]?.stringValue ?? target.id
        let frameLabel: Int
        if let known = target.frames[frame] { frameLabel = known } else {
            frameLabel = target.frames.count + 1
            target.frames[frame] = frameLabel
        }
        let document = (target.documents[frame] ?? 0) + 1
        target.documents[frame] = document
        targets[key] = target
        let conn = "t\(target.label).f\(frameLabel).d\(document)"
        let origin = context["origin"]?.stringValue ?? ""
        contexts[key, default: [:]][id] = Context(conn: conn, frame: frame, origin: origin)
        frameContexts[frame] = Context(conn: conn, frame: frame, origin: origin)
        let url = frameURLs[frame] ?? (frame == target.id ? target.url : "")
        openConnections[conn] = url
        connectionsOpened += 1
        let shownURL = url.isEmpty ? origin : url
        // The binding again, for this document: in a tab opened while the recorder
        // attached (by /json/new, under load) the binding added just before now and then
        // never reached the new document (its tap, run at document start, never saw it),
        // so the tap kept every line waiting and the tab recorded nothing (2 of 12 runs of
        // `twoTabsAreTwoConnections` beside two busy processes). DevTools ignores a
        // binding it has, so the page sees nothing new; where it was missing, the tap's
        // setter takes it and sends what waited.
        return [.event(ArchiveEvent(time: now, kind: .open, connection: conn,
                                    reason: "\(target.type) \(shownURL) (target \(target.id), frame \(frame))")),
                command(key.channel, session: key.session, "Runtime.addBinding", ["name": .string(bindingName)])]
    }

    mutating func closeContext(_ key: SessionKey, id: Int, reason: String, now: Int64) -> [Action] {
        guard let context = contexts[key]?.removeValue(forKey: id) else { return [] }
        if frameContexts[context.frame]?.conn == context.conn { frameContexts.removeValue(forKey: context.frame) }
        guard let url = openConnections.removeValue(forKey: context.conn) else { return [] }
        return [.event(ArchiveEvent(time: now, kind: .close, connection: context.conn,
                                    reason: url.isEmpty ? reason : "\(reason): \(url)"))]
    }

    mutating func closeAll(_ key: SessionKey, reason: String, now: Int64, forget: Bool) -> [Action] {
        var actions: [Action] = []
        for id in (contexts[key] ?? [:]).keys.sorted() {
            actions += closeContext(key, id: id, reason: reason, now: now)
        }
        if forget {
            targets.removeValue(forKey: key)
            contexts.removeValue(forKey: key)
        }
        return actions
    }

    mutating func closeTarget(id: String, channel: Channel, reason: String, now: Int64) -> [Action] {
        var actions: [Action] = []
        for key in targets.keys where key.channel == channel && targets[key]?.id == id {
            actions += closeAll(key, reason: reason, now: now, forget: true)
        }
        return actions
    }

    mutating func bindingCalled(_ key: SessionKey, _ params: JSONObject, now: Int64) -> [Action] {
        guard params["name"]?.stringValue == bindingName else { return [] }
        let contextId = params["executionContextId"]?.numberValue.flatMap { Int($0.lexeme) } ?? -1
        let receiver = contexts[key]?[contextId]
        let conn = receiver?.conn ?? "t\(targets[key]?.label ?? 0).ctx\(contextId)"
        guard let payload = params["payload"]?.stringValue else {
            return [.event(ArchiveEvent(time: now, kind: .error, connection: conn,
                                        reason: "the tap's binding was called without a string payload; ignored"))]
        }
        // One call carries the tap lines of one page task, joined by LF.
        var tap = TapLogParser()
        var actions: [Action] = []
        for line in payload.utf8.split(separator: 0x0A, omittingEmptySubsequences: false) {
            for entry in tap.feed(Array(line) + [0x0A]) {
                switch entry {
                case .message(let m):
                    var target = conn
                    if let receiver, line.count > 20, String(decoding: line.suffix(400), as: UTF8.self).contains("\"from\":\"child\"") {
                        target = childConnection(of: receiver, line: Array(line)) ?? conn
                    }
                    actions.append(.record(time: m.time, direction: m.direction, connection: target, payload: m.payload))
                case .event(let e) where e.event.kind == .crossing:
                    // What WebKit's bridge will do to the message that follows (docs/FORMAT.md §5):
                    // the message's connection (crossing lines never carry "from":"child").
                    var event = e.event
                    event.connection = conn
                    actions.append(.event(event))
                case .event:
                    // The tap sends messages only; a page that calls the binding with an
                    // event line does not get to write the recorder's events.
                    actions.append(.event(ArchiveEvent(time: now, kind: .error, connection: conn, bytes: line.count,
                                                       reason: "the tap's binding was called with an event line; ignored")))
                case .error(let e):
                    actions.append(.event(ArchiveEvent(time: now, kind: .error, connection: conn, bytes: line.count,
                                                       reason: "the tap's binding was called with a bad tap line "
                                                           + "(\(e.reason))" + (e.messageImported ? "; its message was recorded" : "; ignored"))))
                }
            }
        }
        if actions.isEmpty {
            actions.append(.event(ArchiveEvent(time: now, kind: .error, connection: conn, bytes: 0,
                                               reason: "the tap's binding was called with an empty payload; ignored")))
        }
        return actions
    }
}

extension CDPSession {
    /// An iframe-shape message a frame received from one of its child frames belongs to
    /// that child's journey: the connection of the child frame with the line's `origin`
    /// (the only such child, or the first opened), nil when none is known.
    func childConnection(of receiver: Context, line: [UInt8]) -> String? {
        guard case .object(let o)? = try? parser.parse(line).value, let origin = o["origin"]?.stringValue else { return nil }
        let children = frameContexts.values.filter { $0.frame != receiver.frame && $0.origin == origin }
        let direct = children.filter { frameParents[$0.frame] == receiver.frame }
        return (direct.isEmpty ? children : direct).min { $0.conn < $1.conn }?.conn
    }
}
