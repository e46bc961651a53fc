import NIOCore

/// Holds the server's half-closure (its FIN) back while the upgrade is running, and
/// sends it on once the upgraded pipeline is in place. First in the pipeline of
/// ``WebSocketClient``'s connections and of the recording proxy's upstream connections
/// (both allow remote half-closure).
///
/// A server that ends the connection right behind its 101 (the recording proxy refusing a
/// page whose upstream is down) sends the 101, a close frame and a FIN together. NIO's
/// client upgrade handler passes the `inputClosed` event on at once: the HTTP decoder,
/// still in the pipeline, dropped the close frame it held, and the WebSocket handlers did
/// not exist yet to see the end, so the page's message stream never ended (a proxy test
/// hung `make test` twice; `ClientCloseRaceTests` reproduced it on every run). The latch
/// is first in the pipeline; once the response head is complete (the upgrade, or the
/// refusal, is then under way) a FIN waits for ``release(_:)``, which the end of the
/// upgrade calls. A FIN before a complete head goes on at once: the HTTP decoder fails
/// the upgrade with it, as before.
package final class InputClosedLatch: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer

    /// Whether a FIN before a complete head also closes the channel (the recording
    /// proxy's upstream: its pipeline does not end the upgrade on a half-closure).
    private let closesOnEarlyEnd: Bool
    private var headComplete = false
    /// The last three bytes read while looking for the end of the head.
    private var tail: [UInt8] = []
    private var held = false
    private var released = false

    /// A latch; with `closesOnEarlyEnd`, a FIN before a complete response head closes the
    /// channel too.
    package init(closesOnEarlyEnd: Bool = false) {
        self.closesOnEarlyEnd = closesOnEarlyEnd
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !headComplete {
            // CR LF CR LF ends the head; it may straddle two reads.
            let seen = tail + Self.unwrapInboundIn(data).readableBytesView
            var k = 0
            while k + 3 < seen.count, !headComplete {
                headComplete = seen[k] == 13 && seen[k + 1] == 10 && seen[k + 2] == 13 && seen[k + 3] == 10
                k += 1
            }
            tail = Array(seen.suffix(3))
        }
        context.fireChannelRead(data)
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event, !released {
            if headComplete {
                held = true
                return
            }
            if closesOnEarlyEnd {
                context.fireUserInboundEventTriggered(event)
                context.close(promise: nil)
                return
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// The upgrade ended (upgraded, refused or failed): a FIN held back goes on, after
    /// what was read before it (the upgrade handler forwards that in this same turn of
    /// the event loop, so the FIN waits for the next).
    package func release(_ channel: Channel) {
        released = true
        guard held else { return }
        held = false
        channel.eventLoop.execute {
            channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        }
    }
}
