import BridgeWebSocket
import NIOCore

/// Where a connection's ``BridgeOutbound`` sends and closes go: the handler and its
/// context while it is in the pipeline, nothing after (calls then do nothing). Used on
/// the channel's event loop only.
///
/// The connection keeps its outbound for as long as it lives, and the handler keeps the
/// connection: if the outbound kept the handler, every closed connection would stay in
/// memory (issue 42's soak). The handler empties the sink in `handlerRemoved`.
final class OutboundSink {
    var handler: WebSocketBridgeHandler?
    var context: ChannelHandlerContext?

    func send(_ bytes: [UInt8]) {
        guard let handler, let context else { return }
        handler.send(bytes, context: context)
    }

    func close(_ code: CloseCode, _ reason: String) {
        guard let handler, let context else { return }
        handler.close(code, reason, context: context)
    }
}
