import BridgeJSON
import BridgeProtocol
import Foundation

extension Scenario {
    /// Largest accepted scenario file: 1 MiB.
    public static let maxFileBytes = 1 << 20
    /// Most outcomes in one capability's list, and most events.
    static let maxListLength = 1000

    /// Reads a scenario file (docs/SCENARIOS.md). Errors name the field's JSON path and
    /// its byte offset, line and column.
    public static func load(path: String) throws(HostError) -> Scenario {
        let data: Data
        do {
            let url = URL(fileURLWithPath: path)
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            guard size <= maxFileBytes else {
                throw HostError(.invalidScenario, "the file is \(size) bytes, over the limit of \(maxFileBytes)", path: path)
            }
            data = try Data(contentsOf: url)
        } catch let e as HostError {
            throw e
        } catch {
            throw HostError(.unreadableScenario, "cannot read \(path): \(error.localizedDescription)")
        }
        return try parse([UInt8](data))
    }

    /// Parses scenario JSON (docs/SCENARIOS.md). Unknown members are errors, so a typo
    /// never silently falls back to a default.
    public static func parse(_ bytes: [UInt8]) throws(HostError) -> Scenario {
        guard bytes.count <= maxFileBytes else {
            throw HostError(.invalidScenario, "the scenario is \(bytes.count) bytes, over the limit of \(maxFileBytes)")
        }
        let document: JSONDocument
        do {
            document = try JSONParser(limits: JSONLimits(maxInputBytes: maxFileBytes, maxDepth: 32)).parse(bytes)
        } catch {
            throw HostError(.invalidScenario, "not valid JSON: \(error.reason) (line \(error.line), column \(error.column))",
                            offset: error.offset)
        }
        let reader = ScenarioReader(bytes: bytes)
        if let d = document.duplicateKeys.first {
            throw reader.error("the key \"\(d.key)\" appears twice in one object", path: d.key, offset: d.duplicateOffset)
        }
        return try reader.scenario(document.value)
    }
}

/// Walks a parsed scenario, keeping the JSON path for errors.
struct ScenarioReader {
    let bytes: [UInt8]

    func error(_ message: String, path: String, offset: Int?) -> HostError {
        var text = message
        if let offset, offset >= 0 {
            let loc = SourceLocation(offset: offset, in: bytes)
            text += " (line \(loc.line), column \(loc.column))"
        }
        return HostError(.invalidScenario, text, path: path.isEmpty ? "(root)" : path, offset: offset)
    }

    func scenario(_ root: JSONValue) throws(HostError) -> Scenario {
        guard case .object(let o) = root else { throw error("a scenario is a JSON object, not a \(root.kindName)", path: "", offset: 0) }
        try onlyKeys(o, ["name", "description", "base", "environment", "hostVersion", "hostReady", "selfieBlobs",
                         "capabilities", "events"], path: "")
        var s = Scenario()
        if let m = o.member("base") {
            switch try string(m, path: "base") {
            case "default": break
            case "empty": s = .empty
            case let other: throw error("base \"\(other)\" is not \"default\" or \"empty\"", path: "base", offset: m.valueOffset)
            }
        }
        if let m = o.member("name") { s.name = try string(m, path: "name") }
        if let m = o.member("description") { s.description = try string(m, path: "description") }
        if let m = o.member("environment") {
            let e = HostEnvironment(rawValue: try string(m, path: "environment"))
            guard HostEnvironment.known.contains(e) else {
                throw error("environment \"\(e)\" is not ios, android or web", path: "environment", offset: m.valueOffset)
            }
            s.environment = e
        }
        if let m = o.member("hostVersion") { s.hostVersion = try nonEmptyString(m, path: "hostVersion") }
        if let m = o.member("hostReady") { s.hostReady = try bool(m, path: "hostReady") }
        if let m = o.member("selfieBlobs") {
            let raw = try string(m, path: "selfieBlobs")
            guard let style = StubSelfieCamera.BlobStyle(rawValue: raw) else {
                throw error("selfieBlobs \"\(raw)\" is not \"distinct\" or \"jpeg\"", path: "selfieBlobs", offset: m.valueOffset)
            }
            s.selfieBlobs = style
        }
        if let m = o.member("capabilities") {
            guard case .object(let caps) = m.value else {
                throw error("capabilities must be an object keyed by capability id, not a \(m.value.kindName)",
                            path: "capabilities", offset: m.valueOffset)
            }
            for c in caps.members {
                let path = "capabilities.\(c.key)"
                if let kind = SlotKind(capabilityID: c.key) {
                    s[slot: kind] = try slot(c, path: path)
                } else {
                    guard Action(rawValue: c.key).isWellFormed else {
                        throw error("\"\(c.key)\" is not a capability id (dot-separated name)", path: path, offset: c.keyOffset)
                    }
                    s.custom.removeAll { $0.id == c.key }
                    s.custom.append(try custom(c, path: path))
                }
            }
        }
        if let m = o.member("events") { s.events = try events(m) }
        return s
    }

    func slot(_ m: JSONObject.Member, path: String) throws(HostError) -> Scenario.Slot {
        let o = try object(m, path: path)
        try onlyKeys(o, ["handler", "enabled", "permissionState", "version", "latencyMs", "outcome", "error", "cancelReason"],
                     path: path)
        var s = Scenario.Slot()
        if let f = o.member("handler") { s.handler = try bool(f, path: path + ".handler") }
        if let f = o.member("enabled") { s.enabled = try bool(f, path: path + ".enabled") }
        if let f = o.member("version") { s.version = try nonEmptyString(f, path: path + ".version") }
        if let f = o.member("latencyMs") { s.latencyMs = try latency(f, path: path + ".latencyMs") }
        if let f = o.member("cancelReason") { s.cancelReason = try string(f, path: path + ".cancelReason") }
        if let f = o.member("error") { s.error = try errorPayload(f, path: path + ".error") }
        let outcome = o.member("outcome")
        if let outcome { s.outcomes = try outcomes(outcome, path: path + ".outcome") }
        if let f = o.member("permissionState") {
            if f.value.isNull {
                s.permissionState = nil
            } else {
                let p = PermissionState(rawValue: try string(f, path: path + ".permissionState"))
                guard PermissionState.known.contains(p) else {
                    throw error("permissionState \"\(p)\" is not granted, denied, notDetermined or restricted",
                                path: path + ".permissionState", offset: f.valueOffset)
                }
                s.permissionState = p
                if p == .denied && outcome == nil { s.outcomes = [.denied] }
            }
        } else if s.outcomes.contains(.denied) {
            s.permissionState = .denied
        }
        return s
    }

    func custom(_ m: JSONObject.Member, path: String) throws(HostError) -> Scenario.Custom {
        let o = try object(m, path: path)
        try onlyKeys(o, ["registered", "available", "version", "latencyMs", "outcome", "data", "error", "cancelReason"],
                     path: path)
        var c = Scenario.Custom(id: m.key)
        if let f = o.member("registered") { c.registered = try bool(f, path: path + ".registered") }
        if let f = o.member("available") { c.available = try bool(f, path: path + ".available") }
        if let f = o.member("version") { c.version = try nonEmptyString(f, path: path + ".version") }
        if let f = o.member("latencyMs") { c.latencyMs = try latency(f, path: path + ".latencyMs") }
        if let f = o.member("outcome") { c.outcomes = try outcomes(f, path: path + ".outcome") }
        if let f = o.member("data") { c.data = try object(f, path: path + ".data") }
        if let f = o.member("error") { c.error = try errorPayload(f, path: path + ".error") }
        if let f = o.member("cancelReason") { c.cancelReason = try string(f, path: path + ".cancelReason") }
        return c
    }

    func events(_ m: JSONObject.Member) throws(HostError) -> [HostStateMachine.ScheduledEvent] {
        guard case .array(let items) = m.value else {
            throw error("events must be an array, not a \(m.value.kindName)", path: "events", offset: m.valueOffset)
        }
        guard items.count <= Scenario.maxListLength else {
            throw error("events has \(items.count) entries, over the limit of \(Scenario.maxListLength)", path: "events",
                        offset: m.valueOffset)
        }
        var out: [HostStateMachine.ScheduledEvent] = []
        for (i, item) in items.enumerated() {
            let path = "events[\(i)]"
            let member = JSONObject.Member(key: path, value: item, valueOffset: m.valueOffset)
            let o = try object(member, path: path)
            try onlyKeys(o, ["atMs", "action", "data"], path: path)
            guard let at = o.member("atMs"), let action = o.member("action") else {
                throw error("an event needs \"atMs\" and \"action\"", path: path, offset: m.valueOffset)
            }
            let name = Action(rawValue: try string(action, path: path + ".action"))
            guard name.isWellFormed else {
                throw error("action \"\(name)\" is not a dot-separated name", path: path + ".action", offset: action.valueOffset)
            }
            var data: JSONObject?
            if let d = o.member("data") { data = try object(d, path: path + ".data") }
            out.append(.init(atMs: try latency(at, path: path + ".atMs"), action: name, data: data))
        }
        return out
    }

    func outcomes(_ m: JSONObject.Member, path: String) throws(HostError) -> [Scenario.Outcome] {
        func one(_ v: JSONValue) throws(HostError) -> Scenario.Outcome {
            guard case .string(let s) = v, let o = Scenario.Outcome(rawValue: s) else {
                throw error("an outcome is \"success\", \"cancelled\", \"denied\" or \"failed\", not \(describe(v))",
                            path: path, offset: m.valueOffset)
            }
            return o
        }
        if case .array(let items) = m.value {
            guard !items.isEmpty, items.count <= Scenario.maxListLength else {
                throw error("an outcome list holds 1 to \(Scenario.maxListLength) outcomes, not \(items.count)", path: path,
                            offset: m.valueOffset)
            }
            var out: [Scenario.Outcome] = []
            for item in items { out.append(try one(item)) }
            return out
        }
        return [try one(m.value)]
    }

    func errorPayload(_ m: JSONObject.Member, path: String) throws(HostError) -> ErrorPayload {
        let o = try object(m, path: path)
        try onlyKeys(o, ["code", "message", "recoverable"], path: path)
        guard let c = o.member("code") else { throw error("an error needs a \"code\"", path: path, offset: m.valueOffset) }
        let code = ErrorCode(rawValue: try string(c, path: path + ".code"))
        guard code.isKnown else {
            throw error("error code \"\(code)\" is not one PROTOCOL.md §4 lists (the host could not send it cleanly)",
                        path: path + ".code", offset: c.valueOffset)
        }
        let message = try o.member("message").map { (f) throws(HostError) in try string(f, path: path + ".message") }
        let recoverable = try o.member("recoverable").map { (f) throws(HostError) in try bool(f, path: path + ".recoverable") }
        return ErrorPayload(code: code, message: message ?? "The operation failed (\(code))", recoverable: recoverable ?? true)
    }

    // MARK: - Field readers

    func onlyKeys(_ o: JSONObject, _ allowed: Set<String>, path: String) throws(HostError) {
        for m in o.members where !allowed.contains(m.key) {
            let p = path.isEmpty ? m.key : "\(path).\(m.key)"
            throw error("unknown member \"\(m.key)\" (expected one of: \(allowed.sorted().joined(separator: ", ")))",
                        path: p, offset: m.keyOffset)
        }
    }

    func object(_ m: JSONObject.Member, path: String) throws(HostError) -> JSONObject {
        guard case .object(let o) = m.value else { throw error("must be an object, not \(describe(m.value))", path: path, offset: m.valueOffset) }
        return o
    }

    func string(_ m: JSONObject.Member, path: String) throws(HostError) -> String {
        guard case .string(let s) = m.value else { throw error("must be a string, not \(describe(m.value))", path: path, offset: m.valueOffset) }
        return s
    }

    func nonEmptyString(_ m: JSONObject.Member, path: String) throws(HostError) -> String {
        let s = try string(m, path: path)
        guard !s.isEmpty else { throw error("must not be empty", path: path, offset: m.valueOffset) }
        return s
    }

    func bool(_ m: JSONObject.Member, path: String) throws(HostError) -> Bool {
        guard case .bool(let b) = m.value else { throw error("must be true or false, not \(describe(m.value))", path: path, offset: m.valueOffset) }
        return b
    }

    /// A whole number of milliseconds, 0 ... ``ScriptedBehaviour/maxLatencyMs``.
    func latency(_ m: JSONObject.Member, path: String) throws(HostError) -> Int64 {
        guard case .number(let n) = m.value, n.isIntegerLexeme, let v = n.int64, v >= 0, v <= ScriptedBehaviour.maxLatencyMs else {
            throw error("must be a whole number of milliseconds from 0 to \(ScriptedBehaviour.maxLatencyMs), not \(describe(m.value))",
                        path: path, offset: m.valueOffset)
        }
        return v
    }

    func describe(_ v: JSONValue) -> String {
        switch v {
        case .string(let s): return "the string \"\(s.prefix(60))\""
        case .number(let n): return "the number \(n.lexeme.prefix(40))"
        case .bool(let b): return "\(b)"
        case .null: return "null"
        default: return "a JSON \(v.kindName)"
        }
    }
}
