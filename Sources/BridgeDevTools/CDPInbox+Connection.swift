import BridgeTransport
import Logging

extension CDPInbox {
    /// Runs one inspector or DevTools WebSocket for a recorder: what `outbound` yields is
    /// sent, what arrives is put here as `.message`, and the connection's opening and its
    /// end (`closedReason`, or the error) as `.opened` and `.closed`. Used by both
    /// recording sources (`record --cdp`, `record --webkit`).
    func connect(_ url: WebSocketURL, channel: CDPSession.Channel, kind: CDPSession.ChannelKind,
                 maxMessageBytes: Int, outbound: AsyncStream<[UInt8]>, closedReason: String,
                 logger: Logger) -> Task<Void, Never> {
        Task.detached { [self] in
            let options = WebSocketClientOptions(deflate: false, origin: nil, maxMessageBytes: maxMessageBytes, connectTimeout: 5)
            do {
                try await WebSocketClient.withConnection(to: url, options: options) { ws in
                    put(.opened(channel, kind))
                    await withTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await bytes in outbound {
                                do { try await ws.send(bytes) } catch { return }
                            }
                        }
                        for await message in ws.messages { put(.message(channel, message)) }
                        group.cancelAll()
                    }
                }
                put(.closed(channel, closedReason))
            } catch {
                logger.debug("connection \(url) ended: \(error)")
                put(.closed(channel, "\(error)"))
            }
        }
    }
}
