import NIOCore
import NIOHTTP1

/// One HTTP/1.1 answer of the collector: the status, the headers the exporter reads
/// (`Retry-After`, `Content-Type`) and the body, cut at ``OTLPHTTPConnection/maxBodyBytes``.
struct OTLPHTTPResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]
}

/// A request on its way to the wire, with the promise its response fulfils.
struct OTLPHTTPExchange: Sendable {
    var head: HTTPRequestHead
    var body: [UInt8]
    var promise: EventLoopPromise<OTLPHTTPResponse>
}

/// Why an exchange failed below HTTP.
enum OTLPHTTPFailure: Error, Sendable {
    /// The connection closed before a complete response arrived.
    case closed
    /// A second request was written while one was in flight (a bug of the caller).
    case busy
}

/// The one handler of the exporter's HTTP/1.1 client pipeline (after NIO's codec):
/// writes an ``OTLPHTTPExchange`` as head, body and end, and fulfils its promise with
/// the response. One request in flight at a time (no pipelining): the exporter waits
/// for each answer, which is what bounds its memory. Lives on its channel's event loop.
final class OTLPExchangeHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = OTLPHTTPExchange
    typealias OutboundOut = HTTPClientRequestPart

    private let maxBodyBytes: Int
    private var pending: EventLoopPromise<OTLPHTTPResponse>?
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []

    init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let exchange = unwrapOutboundIn(data)
        guard pending == nil else {
            exchange.promise.fail(OTLPHTTPFailure.busy)
            promise?.fail(OTLPHTTPFailure.busy)
            return
        }
        pending = exchange.promise
        head = nil
        body = []
        context.write(wrapOutboundOut(.head(exchange.head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: exchange.body)))), promise: nil)
        context.write(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
        case .body(var buffer):
            let room = maxBodyBytes - body.count
            if room > 0, let bytes = buffer.readBytes(length: Swift.min(room, buffer.readableBytes)) {
                body.append(contentsOf: bytes)
            }
        case .end:
            guard let promise = pending, let head else { return }
            pending = nil
            promise.succeed(OTLPHTTPResponse(status: Int(head.status.code), headers: head.headers, body: body))
            body = []
            if !head.isKeepAlive { context.close(promise: nil) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        pending?.fail(OTLPHTTPFailure.closed)
        pending = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        pending?.fail(error)
        pending = nil
        context.close(promise: nil)
    }
}
