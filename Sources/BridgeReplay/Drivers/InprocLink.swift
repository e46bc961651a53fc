import BridgeHost
import Logging
import BridgeClock

/// The reference host in this process on the real clock (``WallClock``), reached
/// through a ``MemoryTransport``: used for in-process replays under `--real-clock`, and
/// by the pacing benchmark. (Without `--real-clock`, in-process replays run on virtual
/// time: ``VirtualReplayDriver``.)
struct InprocLink: ReplayLink {
    let transport: MemoryTransport

    /// What the host sent.
    public var messages: AsyncStream<[UInt8]> { transport.sent }

    /// Delivers a message to the host.
    public func send(_ message: [UInt8]) async throws {
        transport.deliver(message)
    }

    /// Runs a fresh host scripted by `scenario` while `body` uses the link; then closes
    /// the web side and stops the host (requests still in progress are dropped).
    public static func with<T: Sendable>(scenario: Scenario, seed: UInt64, logger: Logger,
                                         _ body: (InprocLink) async -> T) async -> T {
        let transport = MemoryTransport()
        let host = scenario.makeHost(clock: WallClock(), logger: logger, eventIDSeed: seed)
        return await withTaskGroup(of: Void.self) { group in
            group.addTask { await host.run(transport: transport) }
            let result = await body(InprocLink(transport: transport))
            transport.close()
            group.cancelAll()
            return result
        }
    }
}
