import BridgeTransport
import BridgeHost

/// The settings a black-box target shares: how strictly it is judged and how it waits.
package protocol BlackBoxSettings {
    var strict: Bool { get set }
    var responseTimeoutMs: Int64? { get set }
    var maxStepDelayMs: Int64 { get set }
}

extension BlackBoxSettings {
    /// The longest a case waits, after the last final answer, for the host to fall quiet
    /// (its settle time without a message): a host that keeps talking (an event every few
    /// milliseconds, as events are allowed) ends the quiet wait here rather than holding the
    /// case, and the run, for good. What it said by then is judged. 5 s.
    static var maxQuietWaitMs: Int64 { 5_000 }
}

extension StdioTarget: BlackBoxSettings {}
extension WebViewTarget: BlackBoxSettings {}
extension WebSocketTarget: BlackBoxSettings {}

extension FuzzOptions.TargetSpec {
    /// The target this spec names: the in-process reference host (always judged by its
    /// own choices), or a black-box host judged leniently unless `strict`, each request
    /// waiting `responseTimeoutMs` (nil: PROTOCOL.md §2's timeouts) and each step's delay
    /// honoured up to `maxStepDelayMs` (nil: the fuzzer's compression of pauses).
    /// A `cdp:`/`webkit:` spec attaches with `pageOpener` (nil: every case is a target failure saying so).
    public func makeTarget(scenario: Scenario?, strict: Bool, responseTimeoutMs: Int64?, maxStepDelayMs: Int64? = nil) -> any FuzzTarget {
        makeTarget(scenario: scenario, strict: strict, responseTimeoutMs: responseTimeoutMs, maxStepDelayMs: maxStepDelayMs, pageOpener: nil)
    }

    /// ``makeTarget(scenario:strict:responseTimeoutMs:maxStepDelayMs:)`` with the opener of WebView targets.
    package func makeTarget(scenario: Scenario?, strict: Bool, responseTimeoutMs: Int64?, maxStepDelayMs: Int64? = nil,
                            pageOpener: PageBridgeOpener?) -> any FuzzTarget {
        func configured<T: BlackBoxSettings>(_ target: T) -> T {
            var t = target
            t.strict = strict
            t.responseTimeoutMs = responseTimeoutMs
            if let maxStepDelayMs { t.maxStepDelayMs = maxStepDelayMs }
            return t
        }
        switch self {
        case .inproc: return InProcessTarget(scenario: scenario ?? .default)
        case .stdio(let command): return configured(StdioTarget(command: command, scenario: scenario))
        case .webSocket(let url): return configured(WebSocketTarget(url: url, scenario: scenario))
        case .webView(let spec):
            let open = pageOpener ?? { spec in throw FuzzError(.usage, "\(spec): this command cannot drive WebViews") }
            return configured(WebViewTarget(spec: spec, scenario: scenario, open: open))
        }
    }
}
