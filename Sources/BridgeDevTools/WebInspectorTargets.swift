import BridgeJSON

/// The target layer of WebKit's inspector protocol on one page socket
/// (`/socket/<c>/<t>/WebPage`), as a pure state machine: the page is a set of targets
/// (`Target.targetCreated {targetInfo: {targetId, type, isProvisional, isPaused}}`), and
/// every command for a target travels wrapped, `Target.sendMessageToTarget {targetId,
/// message: "<command as JSON text>"}`; its answers and events come back inside
/// `Target.dispatchMessageFromTarget {targetId, message: "<JSON text>"}`. Commands of the
/// `Target` domain itself go unwrapped.
///
/// Not every socket holds targets: one that is the page itself (an iOS before the Target
/// domain, through ios_webkit_debug_proxy) takes commands as they are. Which one a socket
/// is, is read from what it says (``framing``, WebInspectorTargets+Framing.swift), never
/// assumed: a `Target.targetCreated` makes it `wrapped`; a probe answered unwrapped with
/// no target named within ``directGraceNs`` makes it `direct`, and the page is then the
/// one target ``directTarget``.
///
/// ``receive(_:)`` turns one socket message into an ``Incoming``; ``wrap(_:_:_:)`` and
/// ``outer(_:_:)`` build commands with their ids. Messages over ``maxMessageBytes``
/// (outer, or the inner text) and messages for targets it was never told about are
/// reported, never parsed.
package struct WebInspectorTargets: Sendable {
    /// A target as `Target.targetCreated` describes it.
    package struct Info: Sendable, Equatable {
        package var id: String
        package var type: String
        /// A provisional target: the page's next process during a navigation, committed
        /// by `Target.didCommitProvisionalTarget`.
        package var provisional: Bool
        /// Paused by `Target.setPauseOnStart` until `Target.resume`.
        package var paused: Bool

        /// A target as described.
        package init(id: String, type: String, provisional: Bool, paused: Bool) {
            self.id = id
            self.type = type
            self.provisional = provisional
            self.paused = paused
        }
    }

    /// What one socket message was.
    package enum Incoming: Sendable, Equatable {
        /// A new target.
        case created(Info)
        /// A target went away.
        case destroyed(String)
        /// A provisional target replaced `old` (nil when WebKit does not say).
        case committed(old: String?, new: String)
        /// A message from a known target (its answer or event), parsed.
        case fromTarget(String, JSONObject)
        /// The answer to an unwrapped command: its id, and the error's message if it failed.
        case answer(id: Int, error: String?)
        /// Something this layer has no use for (another domain's event).
        case ignored
        /// A message that could not be used, and why (for an `error` event).
        case malformed(String)
    }

    /// The largest message accepted, outer or inner: 256 MiB (the DevTools recorder's limit;
    /// a 20 MB base64 image crosses the console escaped in a JSON string inside a JSON string).
    package static let defaultMaxMessageBytes = CDPLimits.maxMessageBytes

    /// The limit in force.
    package let maxMessageBytes: Int
    /// Targets created and not destroyed or replaced.
    package internal(set) var known: [String: Info] = [:]
    private var nextId = 0
    private var innerIds: [String: Int] = [:]
    private let parser: JSONParser
    /// Whether commands go wrapped to targets, or as they are (not known until the socket says).
    package internal(set) var framing = Framing.undecided
    /// The probe's id, when it was sent and when (ns), and whether it was answered without an error.
    var probeState: (id: Int, sentAt: Int64, answered: Bool)?

    /// A machine accepting messages up to `maxMessageBytes`.
    package init(maxMessageBytes: Int = defaultMaxMessageBytes) {
        self.maxMessageBytes = maxMessageBytes
        parser = JSONParser(limits: JSONLimits(maxInputBytes: maxMessageBytes, maxDepth: 80, maxStringBytes: maxMessageBytes))
    }

    /// One message from the socket.
    package mutating func receive(_ bytes: [UInt8]) -> Incoming {
        guard let object = parse(bytes, what: "the inspector") else {
            return .malformed(bytes.count > maxMessageBytes ? "the inspector sent a message of \(bytes.count) bytes, over the "
                + "\(maxMessageBytes)-byte limit; skipped" : lastError)
        }
        // The page itself: everything it says is the page's.
        if framing == .direct { return .fromTarget(Self.directTarget, object) }
        if let id = object["id"]?.numberValue.flatMap({ Int($0.lexeme) }) {
            let error = object["error"]?.objectValue.map { $0["message"]?.stringValue ?? "error" }
            if let p = probeState, p.id == id {
                probeState?.answered = error == nil
                return .ignored
            }
            return .answer(id: id, error: error)
        }
        guard let method = object["method"]?.stringValue else { return .malformed("the inspector sent an object without id or method; skipped") }
        let params = object["params"]?.objectValue ?? JSONObject()
        switch method {
        case "Target.targetCreated":
            guard let info = params["targetInfo"]?.objectValue, let id = info["targetId"]?.stringValue, !id.isEmpty else {
                return .malformed("Target.targetCreated without a targetInfo.targetId; skipped")
            }
            let target = Info(id: id, type: info["type"]?.stringValue ?? "other",
                              provisional: info["isProvisional"]?.boolValue ?? false, paused: info["isPaused"]?.boolValue ?? false)
            known[id] = target
            framing = .wrapped
            return .created(target)
        case "Target.targetDestroyed":
            guard let id = params["targetId"]?.stringValue else { return .malformed("Target.targetDestroyed without a targetId; skipped") }
            guard known.removeValue(forKey: id) != nil else { return .ignored }
            innerIds.removeValue(forKey: id)
            return .destroyed(id)
        case "Target.didCommitProvisionalTarget":
            guard let new = params["newTargetId"]?.stringValue else {
                return .malformed("Target.didCommitProvisionalTarget without a newTargetId; skipped")
            }
            let old = params["oldTargetId"]?.stringValue
            if let old { known.removeValue(forKey: old) }
            known[new]?.provisional = false
            return .committed(old: old, new: new)
        case "Target.dispatchMessageFromTarget":
            guard let id = params["targetId"]?.stringValue, let text = params["message"]?.stringValue else {
                return .malformed("Target.dispatchMessageFromTarget without a targetId and a message string; skipped")
            }
            guard known[id] != nil else { return .malformed("a message from target \(id), which was never created; skipped") }
            let inner = Array(text.utf8)
            guard inner.count <= maxMessageBytes else {
                return .malformed("target \(id) sent a message of \(inner.count) bytes, over the \(maxMessageBytes)-byte limit; skipped")
            }
            guard let message = parse(inner, what: "target \(id)") else { return .malformed(lastError) }
            return .fromTarget(id, message)
        default:
            return .ignored
        }
    }

    /// A command for `target`, wrapped; with the inner command's id (answers come back
    /// with it inside `Target.dispatchMessageFromTarget`).
    /// On a direct socket, the command for ``directTarget`` goes as it is, numbered with
    /// the unwrapped commands (so no two ids meet).
    package mutating func wrap(_ target: String, _ method: String, _ params: JSONValue = [:]) -> (innerId: Int, bytes: [UInt8]) {
        if framing == .direct && target == Self.directTarget {
            let (id, bytes) = outer(method, params)
            return (id, bytes)
        }
        let innerId = innerIds[target, default: 0] + 1
        innerIds[target] = innerId
        let inner = JSONWriter().bytes(.object(JSONObject([.init(key: "id", value: .integer(Int64(innerId))),
                                                           .init(key: "method", value: .string(method)),
                                                           .init(key: "params", value: params)])))
        let bytes = outer("Target.sendMessageToTarget",
                          .object(JSONObject([.init(key: "targetId", value: .string(target)),
                                              .init(key: "message", value: .string(String(decoding: inner, as: UTF8.self)))]))).bytes
        return (innerId, bytes)
    }

    /// An unwrapped command (the `Target` domain), with its id.
    package mutating func outer(_ method: String, _ params: JSONValue = [:]) -> (id: Int, bytes: [UInt8]) {
        nextId += 1
        return (nextId, JSONWriter().bytes(.object(JSONObject([.init(key: "id", value: .integer(Int64(nextId))),
                                                               .init(key: "method", value: .string(method)),
                                                               .init(key: "params", value: params)]))))
    }

    private var lastError = ""

    private mutating func parse(_ bytes: [UInt8], what: String) -> JSONObject? {
        if bytes.count > maxMessageBytes { return nil }
        do {
            let value = try parser.parse(bytes).value
            guard case .object(let o) = value else {
                lastError = "\(what) sent a \(value.kindName), not an object; skipped"
                return nil
            }
            return o
        } catch {
            lastError = "\(what) sent a message that is not JSON (\(error)); skipped"
            return nil
        }
    }
}
