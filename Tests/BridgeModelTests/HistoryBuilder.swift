import BridgeModel

/// Hand-made histories for the checker's tests: requests, answers and raw lines, in order.
struct HistoryBuilder {
    var history = HostHistory(exactTiming: false)
    var step = 0
    var ms: Int64 = 0

    static func request(_ id: String, _ action: String, data: String? = nil, extra: String = "", version: String = "1.0") -> String {
        let d = data.map { #","data":\#($0)"# } ?? ""
        return #"{"version":"\#(version)","correlationId":"\#(id)","type":"request","timestamp":1700000000000,"payload":{"action":"\#(action)"\#(d)}\#(extra)}"#
    }

    static func response(_ id: String, _ action: String, _ status: String, code: String? = nil, data: String? = nil) -> String {
        var payload = #""action":"\#(action)""#
        if let data { payload += #","data":\#(data)"# }
        payload += #","status":"\#(status)""#
        if let code { payload += #","error":{"code":"\#(code)","message":"m","recoverable":true}"# }
        return #"{"version":"1.0","correlationId":"\#(id)","type":"response","timestamp":1700000000000,"payload":{\#(payload)}}"#
    }

    static let query = #"{"environment":"web","hostVersion":"1.0","capabilities":{"camera.document":{"supported":true,"version":"1.0"}}}"#

    mutating func send(_ line: String) {
        ms += 1
        history.events.append(.sent(step: step, bytes: Array(line.utf8), atMs: ms))
        step += 1
    }

    mutating func send(_ id: String, _ action: String, data: String? = nil) {
        send(Self.request(id, action, data: data))
    }

    mutating func answer(_ line: String) {
        ms += 1
        history.events.append(.received(bytes: Array(line.utf8), atMs: ms))
    }

    mutating func answer(_ id: String, _ action: String, _ status: String = "success", code: String? = nil, data: String? = nil) {
        answer(Self.response(id, action, status, code: code, data: data))
    }

    func verdict(strict: Bool = false, limit: Int = 200_000) -> ModelVerdict {
        var model = HostModel(strict: strict)
        model.searchLimit = limit
        return ExplanationChecker(model: model).check(history)
    }

    func signature(strict: Bool = false) -> String? { verdict(strict: strict).violation?.signature }

    func choices(strict: Bool = false) -> [LegalChoice]? {
        if case .explained(let e) = verdict(strict: strict) { return e.distinctChoices }
        return nil
    }
}
