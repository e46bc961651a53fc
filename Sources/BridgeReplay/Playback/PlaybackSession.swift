import BridgeArchive
import BridgeProtocol
import BridgeServer
import BridgeTransport
import BridgeWebSocket
import Foundation
import BridgeClock

/// One live WebSocket connection played by a ``PlaybackConnection``. What is due at once
/// is sent from the connection's own callbacks (so a `host.ready` recorded first goes out
/// when the socket opens, before any web message is read); what is due later is handed
/// to ``delayed``, which the server's task for this connection sleeps on and sends.
final class PlaybackSession: BridgeConnection, @unchecked Sendable {
    /// Sees every message, both directions, in order (transcript, journey end).
    typealias Observer = @Sendable (ConnectionInfo, Direction, [UInt8]) -> Void

    let info: ConnectionInfo
    /// Batches of messages to send later, in order; finishes when the socket closes.
    let delayed: AsyncStream<[PlaybackConnection.Output]>
    private let continuation: AsyncStream<[PlaybackConnection.Output]>.Continuation
    private let observer: Observer
    private let lock = NSLock()
    private var player: PlaybackConnection
    private var outbound: BridgeOutbound?
    private var closed = false

    init(info: ConnectionInfo, script: PlaybackScript, pacing: ReplayPacing, observer: @escaping Observer) {
        self.info = info
        self.observer = observer
        player = PlaybackConnection(script: script, pacing: pacing, connection: info.id)
        (delayed, continuation) = AsyncStream.makeStream(of: [PlaybackConnection.Output].self)
    }

    /// The player's state (counts, unmatched requests).
    var state: PlaybackConnection { lock.withLock { player } }

    func opened(outbound: BridgeOutbound) {
        let now = WallClock.now.nanoseconds
        let out: [PlaybackConnection.Output] = lock.withLock {
            self.outbound = outbound
            return player.start(now: now)
        }
        dispatch(out, now: now)
    }

    func received(_ message: [UInt8]) {
        observer(info, .webToHost, message)
        let now = WallClock.now.nanoseconds
        let out = lock.withLock { player.receive(message, now: now) }
        dispatch(out, now: now)
    }

    func closed(code: CloseCode?) {
        lock.withLock { closed = true }
        continuation.finish()
    }

    /// Sends what is due now, in order, up to the first later one; the rest goes to ``delayed``.
    private func dispatch(_ out: [PlaybackConnection.Output], now: Int64) {
        guard !out.isEmpty else { return }
        let split = out.firstIndex { $0.at > now } ?? out.count
        for o in out[..<split] { send(o.bytes) }
        if split < out.count { continuation.yield(Array(out[split...])) }
    }

    /// Sends one message now (dropped once the socket is closed).
    func send(_ bytes: [UInt8]) {
        let target: BridgeOutbound? = lock.withLock { closed ? nil : outbound }
        guard let target else { return }
        observer(info, .hostToWeb, bytes)
        target.send(bytes)
    }
}
