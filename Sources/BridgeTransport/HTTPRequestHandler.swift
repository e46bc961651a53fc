import NIOCore
import NIOHTTP1

/// Answers plain HTTP requests (everything that did not upgrade) from ``StaticRoutes``,
/// one request per connection (`Connection: close`). A refused upgrade to `/bridge`
/// because of its `Origin` is answered 403.
final class HTTPRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let routes: StaticRoutes
    private let originPolicy: OriginPolicy
    private var head: HTTPRequestHead?

    init(routes: StaticRoutes, originPolicy: OriginPolicy) {
        self.routes = routes
        self.originPolicy = originPolicy
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
        case .body:
            break
        case .end:
            guard let h = head else { return }
            head = nil
            let response: StaticRoutes.Response
            if h.headers["origin"].count > 1 {
                // Two Origin headers: which one the browser meant is unknowable (RFC 6454 §7.3 allows one).
                response = StaticRoutes.Response(status: 400, contentType: "text/plain; charset=utf-8",
                                                 body: Array("more than one Origin header\n".utf8))
            } else if h.uri.hasPrefix("/bridge") && !h.uri.hasPrefix("/bridge.js") && !originPolicy.allows(h.headers.first(name: "origin")) {
                response = StaticRoutes.Response(status: 403, contentType: "text/plain; charset=utf-8",
                                                 body: Array("origin not allowed: start the host with --origin \(h.headers.first(name: "origin") ?? "")\n".utf8))
            } else {
                response = routes.respond(method: "\(h.method)", uri: h.uri)
            }
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: response.contentType)
            headers.add(name: "Content-Length", value: "\(response.body.count)")
            headers.add(name: "Connection", value: "close")
            headers.add(name: "Cache-Control", value: "no-store")
            let status = HTTPResponseStatus(statusCode: response.status)
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: h.version, status: status, headers: headers))), promise: nil)
            if h.method != .HEAD {
                context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))), promise: nil)
            }
            let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in ctx.value.close(promise: nil) }
        }
    }
}
