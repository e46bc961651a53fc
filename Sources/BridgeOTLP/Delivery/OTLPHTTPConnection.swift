import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A keep-alive HTTP/1.1 connection to the collector on SwiftNIO (no TLS): connects on
/// first use and again after any failure, one request at a time, each bounded by a
/// timeout that covers connecting, sending and the whole answer.
///
/// Used by one task at a time (``OTLPExporter`` owns it).
final class OTLPHTTPConnection {
    /// Response bodies are read up to this size (a partial-success answer or an error
    /// text is a few hundred bytes); the rest is discarded.
    static let maxBodyBytes = 64 * 1024

    let endpoint: OTLPEndpoint
    let group: any EventLoopGroup
    let logger: Logger
    private var channel: (any Channel)?

    init(endpoint: OTLPEndpoint, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger) {
        self.endpoint = endpoint
        self.group = group
        self.logger = logger
    }

    /// A failure with the words a person needs (`connection refused`, `no answer within 2.0 s`).
    struct Failure: Error {
        var description: String
        var isTimeout: Bool
    }

    /// Sends one POST and returns the answer, or throws ``Failure`` within `timeout` seconds.
    func post(body: [UInt8], headers: HTTPHeaders, timeout: Double) async throws(Failure) -> OTLPHTTPResponse {
        let started = ContinuousClock.now
        let channel: any Channel
        if let open = self.channel, open.isActive {
            channel = open
        } else {
            do {
                channel = try await ClientBootstrap(group: group)
                    .connectTimeout(.nanoseconds(Int64(Swift.max(0.001, timeout) * 1e9)))
                    .channelOption(.socketOption(.tcp_nodelay), value: 1)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHTTPClientHandlers()
                            try channel.pipeline.syncOperations.addHandler(OTLPExchangeHandler(maxBodyBytes: Self.maxBodyBytes))
                        }
                    }
                    .connect(host: endpoint.host, port: endpoint.port).get()
            } catch {
                throw Failure(description: Self.describe(error), isTimeout: error is ChannelError && "\(error)".contains("connectTimeout"))
            }
            self.channel = channel
            logger.debug("connected to the collector", metadata: ["endpoint": "\(endpoint)"])
        }
        var all = headers
        all.replaceOrAdd(name: "Host", value: endpoint.hostHeader)
        all.replaceOrAdd(name: "Content-Type", value: "application/x-protobuf")
        all.replaceOrAdd(name: "Content-Length", value: String(body.count))
        let head = HTTPRequestHead(version: .http1_1, method: .POST, uri: endpoint.path, headers: all)
        let promise = channel.eventLoop.makePromise(of: OTLPHTTPResponse.self)
        let remaining = timeout - Self.seconds(ContinuousClock.now - started)
        let timedOut = TimeoutFlag()
        let deadline = channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(Swift.max(0.001, remaining) * 1e9))) {
            timedOut.set()
            channel.close(promise: nil)
        }
        channel.writeAndFlush(OTLPHTTPExchange(head: head, body: body, promise: promise), promise: nil)
        do {
            let response = try await promise.futureResult.get()
            deadline.cancel()
            return response
        } catch {
            deadline.cancel()
            self.channel = nil
            channel.close(promise: nil)
            if timedOut.isSet {
                throw Failure(description: "no answer within \(Self.format(timeout)) s", isTimeout: true)
            }
            throw Failure(description: Self.describe(error), isTimeout: false)
        }
    }

    /// Closes the connection, if open.
    func close() async {
        guard let channel else { return }
        self.channel = nil
        try? await channel.close()
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    static func format(_ s: Double) -> String {
        String(format: "%.1f", s)
    }

    /// SwiftNIO's errors in words.
    static func describe(_ error: any Error) -> String {
        if let e = error as? OTLPHTTPFailure {
            switch e {
            case .closed: return "the collector closed the connection before answering"
            case .busy: return "internal error: two requests in flight on one connection"
            }
        }
        if let e = error as? IOError {
            switch e.errnoCode {
            case 111: return "connection refused"
            case 104: return "connection reset by the collector"
            case 113, 101: return "no route to the collector"
            default: return e.description
            }
        }
        if let e = error as? NIOConnectionError {
            if let first = e.connectionErrors.first { return describe(first.error) }
            if e.dnsAError != nil || e.dnsAAAAError != nil { return "cannot resolve \(e.host)" }
            return "cannot connect"
        }
        if let e = error as? ChannelError, case .connectTimeout(let t) = e {
            return "no connection within \(format(Double(t.nanoseconds) / 1e9)) s"
        }
        return "\(error)"
    }
}

/// Set by a deadline on the event loop, read by the waiting task.
final class TimeoutFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
