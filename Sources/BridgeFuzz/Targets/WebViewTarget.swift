import BridgeHost
import BridgeProtocol
import BridgeTransport
import Foundation
import Synchronization

/// A host behind a WebView's own bridge, reached through the WebView's debugging door
/// (`cdp:http://HOST:PORT[#URL]`, `webkit:http://HOST:PORT[#URL]`; docs/WEBVIEW-TARGETS.md).
/// Black-box, like ``WebSocketTarget``, with two differences:
///
/// - **One page, one host, for the whole run.** The host lives in the app and cannot be
///   restarted: each case's correlation ids get a suffix of their own (as a kept stdio
///   process's do), and a late answer to an earlier case's id is a leftover, not part of
///   the case. ``confirm(_:until:)`` runs a case in a fresh document (a reload).
/// - **Judged on what crossed.** Each message goes through the page's bridge as a
///   journey sends it: iOS `postMessage(JSON.parse(text))`, Android
///   `postMessage(text)`. The trace holds what crossed (iOS: the object as posted, so
///   duplicate keys keep their last value and big numbers are doubles); a message the
///   shape cannot carry (not JSON, for iOS; not UTF-8) is not sent.
///
/// The page or the debugging connection going away (a crashed page, an app that
/// exited) is a ``Oracle/crash`` finding; the next case attaches again.
package struct WebViewTarget: FuzzTarget, ProbingTarget {
    /// The target as written.
    package let spec: String
    /// The scenario the host runs, when known.
    package let scenario: Scenario?
    /// Judge by this project's choices where PROTOCOL.md §7 leaves one.
    package var strict = false
    /// How long a request may wait for its final answer (nil: PROTOCOL.md §2's timeouts).
    package var responseTimeoutMs: Int64?
    /// Longest real wait of one step (pauses are compressed as for `stdio:`). 1 ms.
    package var maxStepDelayMs: Int64 = 1
    /// Quiet time after the last final answer before a case ends: longer than for a
    /// socket, since answers come out of the page in batches. 20 ms.
    var settleMs: Int64 = 20
    /// The quiet time of a confirmation run. 300 ms.
    var confirmSettleMs: Int64 = 300
    let open: PageBridgeOpener
    let page = PageHolder()

    /// A target that attaches with `open(spec)`.
    package init(spec: String, scenario: Scenario?, open: @escaping PageBridgeOpener) {
        self.spec = spec
        self.scenario = scenario
        self.open = open
    }

    /// The spelling.
    package var name: String { spec }
    /// False: the host lives in the app; once the page is gone, it is gone.
    package var hostSurvivesCrash: Bool { false }
    /// Why the page went away during a case, if it did (later cases then do not run).
    package var lost: String? { page.state.withLock { $0.lost } }
    /// False.
    package var supportsToggles: Bool { false }

    /// Checker without a pending limit and with the scenario model when known.
    package func checker(oracles: Set<Oracle>) -> TraceChecker {
        var c = TraceChecker(model: scenario.map(CapabilityModel.init), pendingLimit: nil,
                             oracles: oracles.intersection(Oracle.overTheWire))
        c.strict = strict
        c.responseTimeoutMs = responseTimeoutMs
        return c
    }

    /// Attaches once, so a wrong endpoint or a page without a bridge is an error before
    /// the run.
    package func probe() async throws {
        do {
            _ = try await page.bridge(open, spec)
        } catch {
            throw FuzzError(.target, "\(error)")
        }
    }

    /// Runs one case on the page.
    package func run(_ input: FuzzInput) async -> Trace {
        await runCase(input, until: nil, fresh: false)
    }

    /// Runs one case on the page, stopped at `deadline`.
    package func run(_ input: FuzzInput, until deadline: ContinuousClock.Instant?) async -> Trace {
        await runCase(input, until: deadline, fresh: false)
    }

    /// Runs one case in a fresh document of the page.
    package func confirm(_ input: FuzzInput, until deadline: ContinuousClock.Instant?) async -> Trace {
        await runCase(input, until: deadline, fresh: true)
    }
}

/// The page a ``WebViewTarget`` drives, kept between cases: its bridge, the answers'
/// reader, the case running now, and the ids earlier cases sent.
final class PageHolder: Sendable {
    struct State {
        var bridge: (any PageBridge)?
        var reader: Task<Void, Never>?
        var recorder: WebSocketTarget.Recorder?
        var cases = 0
        var earlier: Set<String> = []
        var earlierOrder: [String] = []
        /// Why the page went away during a case.
        var lost: String?
        /// Until when an earlier case's unanswered request may hold a capture slot.
        var slotsHeldUntil: ContinuousClock.Instant?
    }
    let state = Mutex(State())
    /// Drawn per run: a host that outlives runs never sees one run's ids again in the next.
    let token = String(UInt32.random(in: 0...UInt32.max) % (36 * 36 * 36), radix: 36)
    /// Ids of earlier cases remembered (the oldest are forgotten past it): 50,000.
    static let maxEarlierIds = 50_000

    /// The page's bridge, attached now if it is not.
    func bridge(_ open: PageBridgeOpener, _ spec: String) async throws -> any PageBridge {
        if let b = state.withLock({ s -> (any PageBridge)? in
            guard let b = s.bridge, b.failure == nil else { return nil }
            return b
        }) { return b }
        let b = try await open(spec)
        let reader = Task.detached { [self] in
            for await m in b.answers {
                let now = ContinuousClock.now
                state.withLock { $0.recorder }?.received(m, at: now)
            }
        }
        state.withLock { s in
            s.bridge?.close()
            s.reader?.cancel()
            s.bridge = b
            s.reader = reader
        }
        return b
    }

    /// Drops the bridge (it failed; `lost`: while a case ran).
    func drop(lost: String? = nil) {
        state.withLock { s in
            if s.lost == nil { s.lost = lost }
            s.bridge?.close()
            s.reader?.cancel()
            s.bridge = nil
            s.reader = nil
        }
    }

    /// Starts a case: its number, the ids earlier cases sent, and whether an earlier
    /// case's unanswered request may still hold a capture slot (a BUSY then is not judged).
    func begin(_ recorder: WebSocketTarget.Recorder) -> (count: Int, slotsMaybeHeld: Bool) {
        state.withLock { s in
            s.cases += 1
            recorder.stale = s.earlier
            s.recorder = recorder
            return (s.cases, s.slotsHeldUntil.map { ContinuousClock.now < $0 } ?? false)
        }
    }

    /// Ends a case: its ids become earlier ids; one it sent that may be a request still
    /// unanswered may hold a slot for ``StdioTarget/slotHoldMs``.
    func end(_ recorder: WebSocketTarget.Recorder) {
        let (ids, owed) = recorder.lock.withLock { (recorder.caseIds, !recorder.owed.isEmpty || !recorder.waiting.nothingOwed) }
        state.withLock { s in
            if s.recorder === recorder { s.recorder = nil }
            if owed { s.slotsHeldUntil = ContinuousClock.now + .milliseconds(StdioTarget.slotHoldMs) }
            for id in ids where s.earlier.insert(id).inserted { s.earlierOrder.append(id) }
            if s.earlierOrder.count > Self.maxEarlierIds {
                let cut = s.earlierOrder.count - Self.maxEarlierIds / 2
                for id in s.earlierOrder.prefix(cut) { s.earlier.remove(id) }
                s.earlierOrder.removeFirst(cut)
            }
        }
    }
}
