import BridgeHost

extension FuzzOptions.TargetSpec {
    /// The target this spec names: the in-process reference host (always judged by its
    /// own choices), or a black-box host judged leniently unless `strict`, each request
    /// waiting `responseTimeoutMs` (nil: PROTOCOL.md §2's timeouts) and each step's delay
    /// honoured up to `maxStepDelayMs` (nil: the fuzzer's compression of pauses).
    public func makeTarget(scenario: Scenario?, strict: Bool, responseTimeoutMs: Int64?, maxStepDelayMs: Int64? = nil) -> any FuzzTarget {
        switch self {
        case .inproc:
            return InProcessTarget(scenario: scenario ?? .default)
        case .stdio(let command):
            var t = StdioTarget(command: command, scenario: scenario)
            t.strict = strict
            t.responseTimeoutMs = responseTimeoutMs
            if let maxStepDelayMs { t.maxStepDelayMs = maxStepDelayMs }
            return t
        case .webSocket(let url):
            var t = WebSocketTarget(url: url, scenario: scenario)
            t.strict = strict
            t.responseTimeoutMs = responseTimeoutMs
            if let maxStepDelayMs { t.maxStepDelayMs = maxStepDelayMs }
            return t
        }
    }
}
