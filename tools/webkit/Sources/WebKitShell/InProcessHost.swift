import BridgeClock
import BridgeHost
import BridgeJSON
import BridgeProtocol
import Foundation
import Logging

/// The reference host (`BridgeHost`, scripted by a scenario) in the shell's process, as an
/// iOS app embeds the seeds' `BridgeHost`. The native tap sits where such an app can put
/// it: a ``BridgeHostDelegate`` (`bridgeHost(_:didReceive:)`, which sees the messages that
/// decoded) plus the host's sends.
package final class InProcessHost: ShellHost, @unchecked Sendable {
    private let host: BridgeHost
    private let transport = ShellTransport()
    private var tapDelegate: NativeTapDelegate?
    private var runner: Task<Void, Never>?
    private let finished = DispatchSemaphore(value: 0)

    package let sendsUncheckedLines = false

    /// A host scripted by `scenario`.
    package init(scenario: Scenario, logger: Logger) {
        host = scenario.makeHost(clock: WallClock(), logger: logger)
    }

    package func start(send: @escaping @Sendable ([UInt8]) -> Void,
                       observe: (@Sendable (NativeObservation) -> Void)?,
                       ended: @escaping @Sendable (String) -> Void) throws(ShellError) {
        if let observe {
            transport.onSend = { bytes in
                observe(NativeObservation(direction: "h2w", bytes: bytes, time: NativeTapDelegate.now()))
                send(bytes)
            }
            let delegate = NativeTapDelegate(observe: observe)
            tapDelegate = delegate
            host.delegate = delegate
        } else {
            transport.onSend = send
        }
        let host = self.host, transport = self.transport, finished = self.finished
        runner = Task.detached {
            await host.run(transport: transport)
            finished.signal()
        }
    }

    /// Feeds the host on the caller's thread (the main loop): `BridgeHost.receive` is
    /// thread safe and never blocks, and a hop through the transport's stream would cost a
    /// task switch per message.
    package func receive(_ body: [UInt8]) {
        host.receive(body)
    }

    package func stop(timeoutSeconds: Double) {
        transport.finish()
        if finished.wait(timeout: .now() + timeoutSeconds) == .timedOut {
            runner?.cancel()
            _ = finished.wait(timeout: .now() + 1)
        }
    }
}

/// The transport between the shell's bridge and the in-process host: the host's sends
/// go out through it; messages go in through `BridgeHost.receive` directly, so its
/// incoming stream only ever ends (``finish()``), which ends the host's run.
final class ShellTransport: HostTransport, @unchecked Sendable {
    let incoming: AsyncStream<[UInt8]>
    private let continuation: AsyncStream<[UInt8]>.Continuation
    /// Set once, before the host runs.
    var onSend: @Sendable ([UInt8]) -> Void = { _ in }

    init() {
        (incoming, continuation) = AsyncStream.makeStream(of: [UInt8].self)
    }

    func finish() { continuation.finish() }
    func send(_ message: [UInt8]) async throws { onSend(message) }
}

/// The native tap of an app built on the seeds' SDK: the host owns the `gbgBridge`
/// handler, so the tap observes what the delegate is told. It records each decoded message
/// as the app would serialize the `BridgeMessage` it is given.
final class NativeTapDelegate: BridgeHostDelegate {
    private let observe: @Sendable (NativeObservation) -> Void

    init(observe: @escaping @Sendable (NativeObservation) -> Void) {
        self.observe = observe
    }

    static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    func bridgeHost(_ host: BridgeHost, didReceive message: Envelope) async {
        observe(NativeObservation(direction: "w2h", bytes: JSONWriter().bytes(message.jsonValue), time: Self.now()))
    }
}
