import BridgeHost
import BridgeProtocol
import Foundation
import Logging
import Testing
import BridgeClock

/// A value shared between tasks in a test.
final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.lock(); defer { lock.unlock() }; return value }
    func update<R>(_ body: (inout Value) -> R) -> R { lock.lock(); defer { lock.unlock() }; return body(&value) }
}

/// Captures log entries so tests can check that something was "refused and logged".
struct CapturingLogHandler: LogHandler {
    let entries: Shared<[(Logger.Level, String, String)]>
    var logLevel: Logger.Level = .debug
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        let code: String
        if case .string(let s)? = event.metadata?["event"] { code = s } else { code = "" }
        entries.update { $0.append((event.level, code, "\(event.message)")) }
    }
}

/// Runs a ``BridgeHost`` on a virtual clock over a ``MemoryTransport``, collecting (and
/// wire-checking) everything it sends.
final class HostHarness: Sendable {
    let host: BridgeHost
    let clock: VirtualClock
    let transport = MemoryTransport()
    let sent = Shared<[Envelope]>([])
    let logs = Shared<[(Logger.Level, String, String)]>([])
    let done = Shared(false)
    private let task = Shared<Task<Void, Never>?>(nil)

    /// A harness around a host built by `make` with the harness's clock and logger.
    init(_ make: (VirtualClock, Logger) -> BridgeHost) {
        let clock = VirtualClock()
        let logs = self.logs
        let logger = Logger(label: "test") { _ in CapturingLogHandler(entries: logs) }
        self.clock = clock
        self.host = make(clock, logger)
    }

    /// Starts the host's run and the collector.
    func start() {
        let host = self.host, transport = self.transport, sent = self.sent, done = self.done
        task.update {
            $0 = Task {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await host.run(transport: transport) }
                    group.addTask {
                        for await bytes in transport.sent {
                            if let e = WireCheck.hostToWeb(bytes) { sent.update { $0.append(e) } }
                        }
                    }
                }
                done.update { $0 = true }
            }
        }
    }

    func deliver(_ bytes: [UInt8]) { transport.deliver(bytes) }

    /// Waits (bounded; no wall-clock assertion) until `condition` holds.
    @discardableResult
    func until(_ what: String = "condition", sourceLocation: Testing.SourceLocation = #_sourceLocation,
               _ condition: () -> Bool) async -> Bool {
        for i in 0..<20_000 {
            if condition() { return true }
            if i % 100 == 99 { try? await Task.sleep(nanoseconds: 200_000) } else { await Task.yield() }
        }
        Issue.record("gave up waiting for \(what)", sourceLocation: sourceLocation)
        return false
    }

    /// Waits until at least `count` envelopes were sent, and returns all sent so far.
    @discardableResult
    func sentCount(_ count: Int, sourceLocation: Testing.SourceLocation = #_sourceLocation) async -> [Envelope] {
        await until("\(count) sent messages", sourceLocation: sourceLocation) { sent.get().count >= count }
        return sent.get()
    }

    /// Closes the web side and waits for the run to end; if it does not end (a request
    /// left pending), records an issue and cancels the run.
    func finish(sourceLocation: Testing.SourceLocation = #_sourceLocation) async {
        transport.close()
        if await until("the run to end", sourceLocation: sourceLocation, { done.get() }) == false {
            task.get()?.cancel()
        }
        await task.get()?.value
    }

    func logged(_ event: String) -> Bool { logs.get().contains { $0.1 == event } }
}
