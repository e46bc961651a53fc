import NIOCore

/// The whole pipeline of a connection refused past the cap: answers HTTP 503 with
/// `Retry-After` as soon as the socket is active, without reading the request, shuts its
/// output, drops what the peer still sends and closes when the peer does, or after
/// ``grace`` (closing with the request unread could make the kernel reset the connection
/// before the peer reads the answer).
final class AdmissionRefusalHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// How long a refused connection may keep its descriptor. 1 s.
    static let grace = TimeAmount.seconds(1)

    private let response: [UInt8]

    init(retryAfterSeconds: Int, reason: String) {
        let body = reason + "\n"
        response = Array(("HTTP/1.1 503 Service Unavailable\r\nRetry-After: \(retryAfterSeconds)\r\n"
            + "Content-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Cache-Control: no-store\r\nConnection: close\r\n\r\n" + body).utf8)
    }

    func channelActive(context: ChannelHandlerContext) {
        let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: response))).whenComplete { result in
            guard case .success = result else { return ctx.value.close(promise: nil) }
            let halfClosed = ctx.value.eventLoop.makePromise(of: Void.self)
            halfClosed.futureResult.whenFailure { _ in ctx.value.close(promise: nil) }
            ctx.value.close(mode: .output, promise: halfClosed)
        }
        context.eventLoop.scheduleTask(in: Self.grace) { ctx.value.close(promise: nil) }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
