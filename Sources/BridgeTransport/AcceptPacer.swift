import NIOCore

/// On the listening channel: when an accept fails for want of descriptors (`EMFILE`,
/// `ENFILE`, `ENOBUFS`, `ENOMEM`), stops accepting for the pause ``AdmissionDriver``
/// gives (100 ms doubling to 1 s) instead of trying again at once; connections already
/// open are served meanwhile.
///
/// NIO's server channel survives those errors but stays registered for readability (its
/// pending read is only cleared by a successful accept), and the listening socket stays
/// readable while the connection waits in the backlog: without a pause the loop spins on
/// `accept` at a whole core (measured: 50,000 failed accepts a second). Holding back
/// `read()` (as NIO's `AcceptBackoffHandler` does) does not stop that; turning `autoRead`
/// off does, because it takes the socket out of epoll. It is turned on again when the
/// pause ends.
final class AcceptPacer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    private let driver: AdmissionDriver
    private var resume: Scheduled<Void>?

    init(driver: AdmissionDriver) {
        self.driver = driver
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let io = error as? IOError, let pause = driver.acceptFailed(io) else {
            return context.fireErrorCaught(error)
        }
        resume?.cancel()
        let channel = context.channel
        try? channel.syncOptions?.setOption(.autoRead, value: false)
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        resume = context.eventLoop.scheduleTask(in: pause) {
            loopBound.value.resume = nil
            guard channel.isActive else { return }
            try? channel.syncOptions?.setOption(.autoRead, value: true)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        resume?.cancel()
        resume = nil
        context.fireChannelInactive()
    }
}
