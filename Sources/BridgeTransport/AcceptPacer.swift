import NIOCore

/// On the listening channel: when an accept fails for want of descriptors (`EMFILE`,
/// `ENFILE`, `ENOBUFS`, `ENOMEM`), stops accepting for the pause ``AdmissionDriver``
/// gives (100 ms doubling to 1 s) instead of trying again at once. NIO's server channel
/// survives those errors and, with `autoRead`, asks to read again straight away: the
/// listening socket stays readable (the connection waits in the backlog), so without a
/// pause the loop spins on `accept` at 100 % of a core. Connections already open are
/// served meanwhile. (NIO's own `AcceptBackoffHandler` does the same with a fixed
/// second; this one doubles, and counts the failures in the admission reports.)
final class AcceptPacer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel
    typealias OutboundIn = any Channel

    private let driver: AdmissionDriver
    private var resumeAt: NIODeadline?
    private var scheduledRead: Scheduled<Void>?

    init(driver: AdmissionDriver) {
        self.driver = driver
    }

    func read(context: ChannelHandlerContext) {
        guard scheduledRead == nil else { return }
        guard let at = resumeAt, at > .now() else {
            resumeAt = nil
            return context.read()
        }
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
        scheduledRead = context.eventLoop.scheduleTask(deadline: at) {
            let pacer = loopBound.value
            pacer.scheduledRead = nil
            pacer.resumeAt = nil
            ctx.value.read()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let io = error as? IOError, let pause = driver.acceptFailed(io) else {
            return context.fireErrorCaught(error)
        }
        resumeAt = .now() + pause
    }

    func channelInactive(context: ChannelHandlerContext) {
        scheduledRead?.cancel()
        scheduledRead = nil
        context.fireChannelInactive()
    }
}
