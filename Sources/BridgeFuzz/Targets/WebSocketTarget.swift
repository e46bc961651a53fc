import BridgeTransport
import BridgeHost
import Foundation

/// Any host serving the bridge over WebSocket (`bridgescope host --listen`), one
/// connection per case. Black-box: real time, ordered (not exact) timing; a refused or
/// dropped connection is a ``Oracle/crash`` finding. Messages that are not UTF-8 or are
/// over 16 MiB are skipped: a text frame cannot carry them (the host would rightly close).
public struct WebSocketTarget: FuzzTarget, ProbingTarget {
    /// The host's URL.
    public let url: WebSocketURL
    /// The scenario the host runs, when known.
    public let scenario: Scenario?
    /// Offer permessage-deflate. Default false: with it, BridgeClient's inflater sometimes
    /// finds the host's first compressed message corrupt and the connection delivers
    /// nothing (about one connection in ten on this machine), which would read as missing
    /// responses. See docs/FUZZING.md, "Known problems".
    public var deflate = false
    /// Longest real wait of one step. Default 2 s.
    var maxStepDelayMs: Int64 = 2_000
    /// How long to wait for answers after the last step. Default 2 s, or the scenario's
    /// longest latency plus 1 s when longer; the wait ends early once nothing has come for
    /// half a second past the scenario's longest latency.
    var quietMs: Int64
    let settleMs: Int64

    /// Creates the target.
    public init(url: WebSocketURL, scenario: Scenario?) {
        self.url = url
        self.scenario = scenario
        let longest = scenario.map { s in max(s.document.latencyMs, s.selfie.latencyMs, s.custom.map(\.latencyMs).max() ?? 0) } ?? 100
        self.quietMs = max(2_000, longest + 1_000)
        self.settleMs = longest + 500
    }

    /// The URL.
    public var name: String { url.description }
    /// False.
    public var supportsToggles: Bool { false }

    /// Checker without a pending limit and with the scenario model when known.
    public func checker(oracles: Set<Oracle>) -> TraceChecker {
        var c = TraceChecker(model: scenario.map(CapabilityModel.init), pendingLimit: nil,
                             oracles: oracles.intersection(Oracle.overTheWire))
        c.strict = strict
        return c
    }

    /// Judge by this project's choices where PROTOCOL.md §7 leaves one (`--strict`).
    /// Default false: every answer §7 allows is accepted.
    public var strict = false

    func probe() async throws {
        do {
            try await WebSocketClient.withConnection(to: url, options: .init(connectTimeout: 3)) { _ in }
        } catch {
            throw FuzzError(.target, "\(error)")
        }
    }

    final class Recorder: @unchecked Sendable {
        let lock = NSLock()
        var events: [Trace.Event] = []
        var lastReceived: ContinuousClock.Instant?
        var streamEnded = false
        func add(_ e: Trace.Event, received: Bool) {
            lock.lock(); defer { lock.unlock() }
            events.append(e)
            if received { lastReceived = ContinuousClock.now }
        }
    }

    /// Runs one case over a fresh connection.
    public func run(_ input: FuzzInput) async -> Trace {
        var trace = Trace(exactTiming: false)
        let recorder = Recorder()
        let clock = ContinuousClock()
        let t0 = clock.now
        @Sendable func now() -> Int64 { Int64((clock.now - t0) / .milliseconds(1)) }
        let steps = input.steps
        let maxStep = maxStepDelayMs, quiet = quietMs, settle = settleMs
        do {
            try await WebSocketClient.withConnection(to: url, options: .init(deflate: deflate, connectTimeout: 3)) { session in
                let reader = Task {
                    for await m in session.messages { recorder.add(.received(bytes: m, atMs: now()), received: true) }
                    // The stream ends on its own only when the connection failed or closed.
                    if !Task.isCancelled { recorder.lock.withLock { recorder.streamEnded = true } }
                }
                for (i, step) in steps.enumerated() {
                    if step.delayMs > 0 { try await Task.sleep(for: .milliseconds(min(step.delayMs, maxStep))) }
                    // A text frame must be UTF-8 (RFC 6455 §8.1: the host closes with 1007
                    // otherwise), and at most 16 MiB: such messages cannot be sent as is.
                    guard case .message(let bytes) = step.kind, bytes.count <= 16 << 20,
                          String(validating: bytes, as: UTF8.self) != nil else { continue }
                    recorder.add(.sent(step: i, bytes: bytes, atMs: now()), received: false)
                    try await session.send(bytes)
                }
                let sentAll = clock.now
                while clock.now - sentAll < .milliseconds(quiet) {
                    try await Task.sleep(for: .milliseconds(50))
                    let last = recorder.lock.withLock { recorder.lastReceived } ?? sentAll
                    if clock.now - max(last, sentAll) > .milliseconds(settle) { break }
                }
                reader.cancel()
                if recorder.lock.withLock({ recorder.streamEnded }) {
                    throw FuzzError(.target, "the connection ended before the case did (closed by the host with \(session.closeCode.map { "\($0)" } ?? "no close frame"), or a frame the client could not read)")
                }
                if let code = session.closeCode, code != .normal {
                    recorder.add(.received(bytes: [], atMs: now()), received: false)
                    throw FuzzError(.target, "the host closed the connection with \(code)")
                }
            }
        } catch {
            trace.targetFailure = "\(url): \(error)"
        }
        trace.events = recorder.lock.withLock { recorder.events }.filter {
            if case .received(let b, _) = $0 { return !b.isEmpty }
            return true
        }
        return trace
    }
}
