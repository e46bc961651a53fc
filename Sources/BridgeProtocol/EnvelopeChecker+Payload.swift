import BridgeJSON

extension EnvelopeChecker {
    mutating func checkPayload(_ root: JSONObject, type: MessageType?) -> Envelope.Payload? {
        guard let pm = root.member("payload") else {
            add(.missingField, "required field \"payload\" is missing", nil)
            return nil
        }
        guard case .object(let payload) = pm.value else {
            add(.wrongFieldType, "\"payload\" must be an object, not a \(pm.value.kindName)", pm.valueOffset)
            return nil
        }
        for m in payload.members where !Self.payloadKeys.contains(m.key) {
            add(.unknownField, "unknown payload member \"\(m.key)\"", m.keyOffset)
        }
        let action = string(payload, "action", required: true, path: "payload.")
        partial.action = action
        if let action, !Action(rawValue: action).isWellFormed {
            add(.invalidAction, action.isEmpty ? "payload.action is empty"
                : "payload.action \"\(action.prefix(80))\" is not a dot-separated name", payload.member("action")!.valueOffset)
        }
        var data: JSONObject?
        if let dm = payload.member("data") {
            switch dm.value {
            case .object(let o): data = o
            case .null: data = nil  // project rule: null data is the same as no data
            default:
                add(.wrongFieldType, "\"payload.data\" must be an object, not a \(dm.value.kindName)", dm.valueOffset)
            }
        }
        let status = checkStatus(payload, type: type)
        let error = checkError(payload, type: type, status: status)
        guard let action else { return nil }
        return Envelope.Payload(action: Action(rawValue: action), data: data, status: status, error: error)
    }

    mutating func checkStatus(_ payload: JSONObject, type: MessageType?) -> Status? {
        guard let sm = payload.member("status") else {
            if type == .response { add(.missingStatus, "response has no payload.status", nil) }
            return nil
        }
        guard case .string(let raw) = sm.value else {
            add(.wrongFieldType, "\"payload.status\" must be a string, not a \(sm.value.kindName)", sm.valueOffset)
            return nil
        }
        let status = Status(rawValue: raw)
        partial.status = status
        if type == .request {
            add(.statusOnRequest, "request carries payload.status \"\(raw)\"; only responses have a status", sm.keyOffset)
        } else if type == .event {
            add(.statusOnEvent, "event carries payload.status \"\(raw)\"; only responses have a status", sm.keyOffset)
        }
        if !status.isKnown {
            add(.invalidStatus, "status \"\(raw.prefix(80))\" is not success, error, cancelled, unsupported or acknowledged", sm.valueOffset)
        }
        return status
    }

    mutating func checkError(_ payload: JSONObject, type: MessageType?, status: Status?) -> ErrorPayload? {
        guard let em = payload.member("error") else {
            if type == .response, let status, status.requiresError {
                add(.errorPayloadMissing, "status \"\(status)\" requires payload.error {code, message, recoverable}", nil)
            }
            return nil
        }
        if type == .request || type == .event {
            add(.errorPayloadUnexpected, "a \(type!) must not carry payload.error", em.keyOffset)
        } else if status == .success {
            add(.errorPayloadUnexpected, "a success response must not carry payload.error", em.keyOffset)
        }
        guard case .object(let eo) = em.value else {
            add(.malformedErrorPayload, "payload.error must be an object, not a \(em.value.kindName)", em.valueOffset)
            return nil
        }
        for m in eo.members where !Self.errorKeys.contains(m.key) {
            add(.unknownField, "unknown error member \"\(m.key)\"", m.keyOffset)
        }
        var code: String?, message: String?, recoverable: Bool?
        var problems: [String] = []
        if let m = eo.member("code") {
            if case .string(let s) = m.value { code = s } else { problems.append("code is a \(m.value.kindName), not a string") }
        } else { problems.append("code is missing") }
        if let m = eo.member("message") {
            if case .string(let s) = m.value { message = s } else { problems.append("message is a \(m.value.kindName), not a string") }
        } else { problems.append("message is missing") }
        if let m = eo.member("recoverable") {
            if case .bool(let b) = m.value { recoverable = b } else { problems.append("recoverable is a \(m.value.kindName), not a boolean") }
        } else { problems.append("recoverable is missing") }
        if !problems.isEmpty {
            add(.malformedErrorPayload, "payload.error: " + problems.joined(separator: "; "), em.valueOffset)
        }
        if let code, !ErrorCode(rawValue: code).isKnown {
            add(.unknownErrorCode, "error code \"\(code.prefix(80))\" is not one PROTOCOL.md §4 lists", eo.member("code")!.valueOffset)
        }
        guard let code, let message, let recoverable else { return nil }
        return ErrorPayload(code: ErrorCode(rawValue: code), message: message, recoverable: recoverable)
    }
}
