// ws-load: N concurrent WebSocket clients, each keeping K capability.query requests in
// flight (send, wait for the answer carrying the same correlationId, send the next) for
// a fixed time; prints round trips per second and latency percentiles as one JSON line.
//
//   ws-load URL --clients N --seconds S [--pipeline K] [--threads T]
//
// The clients are plain SwiftNIO channel handlers (hand-written RFC 6455 client: HTTP
// upgrade, masked text frames out, unmasked frames in): no task or thread hop per
// message, so the load generator costs as little CPU as possible and the server under
// test is what gets measured. All clients connect first; the clock starts when the last
// one is open (connection set-up is not measured) and the rate is round trips completed
// divided by the time from the start to the last answer.
import Foundation
import NIOCore
import NIOPosix

struct Options {
    var host = "127.0.0.1"
    var port = 8787
    var path = "/bridge"
    var clients = 16
    var seconds = 5.0
    var pipeline = 1
    var threads = 1
}

func parse() -> Options {
    var o = Options()
    var args = CommandLine.arguments.dropFirst().makeIterator()
    while let a = args.next() {
        switch a {
        case "--clients": o.clients = max(1, Int(args.next() ?? "") ?? o.clients)
        case "--seconds": o.seconds = Double(args.next() ?? "") ?? o.seconds
        case "--pipeline": o.pipeline = max(1, Int(args.next() ?? "") ?? 1)
        case "--threads": o.threads = max(1, Int(args.next() ?? "") ?? 1)
        default:
            // ws://host:port/path
            guard a.hasPrefix("ws://") else { fatalError("bad URL \(a)") }
            let rest = a.dropFirst(5)
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            let authority = rest[..<slash]
            o.path = slash == rest.endIndex ? "/" : String(rest[slash...])
            if let colon = authority.lastIndex(of: ":") {
                o.host = String(authority[..<colon])
                o.port = Int(authority[authority.index(after: colon)...]) ?? 80
            } else {
                o.host = String(authority)
                o.port = 80
            }
        }
    }
    return o
}

func nowNanoseconds() -> UInt64 { UInt64(NIODeadline.now().uptimeNanoseconds) }

/// Shared start signal and deadline (set once, before any client starts sending).
final class Clock: @unchecked Sendable {
    let lock = NSLock()
    var deadline: UInt64 = .max
}

/// One client: upgrade, then keep `pipeline` requests in flight until the deadline.
final class LoadClient: ChannelInboundHandler, @unchecked Sendable {  // confined to its event loop
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let index: Int
    let options: Options
    let opened: EventLoopPromise<Void>
    let finished: EventLoopPromise<[UInt64]>
    var clock: Clock
    var buffer = ByteBuffer()
    var upgraded = false
    var started = false
    var inFlight: [UInt64: UInt64] = [:]  // request number -> send time
    var next: UInt64 = 0
    var latencies: [UInt64] = []
    var needsFlush = false
    var done = false
    let prefix: [UInt8]
    let suffix = Array(#"","type":"request","timestamp":1700000000000,"payload":{"action":"capability.query"}}"#.utf8)
    let mask: UInt32
    let maskKey: [UInt8]
    var closeRequested = false

    init(index: Int, options: Options, clock: Clock, opened: EventLoopPromise<Void>, finished: EventLoopPromise<[UInt64]>) {
        self.index = index
        self.options = options
        self.clock = clock
        self.opened = opened
        self.finished = finished
        prefix = Array(#"{"version":"1.0","correlationId":"c\#(index)-"#.utf8)
        mask = UInt32(truncatingIfNeeded: index &* 2_654_435_761) | 0x0101_0101
        maskKey = withUnsafeBytes(of: mask.bigEndian) { Array($0) }
        latencies.reserveCapacity(1 << 16)
    }

    func channelActive(context: ChannelHandlerContext) {
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let request = "GET \(options.path) HTTP/1.1\r\nHost: \(options.host):\(options.port)\r\nUpgrade: websocket\r\n" +
            "Connection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: request)), promise: nil)
    }

    /// Starts sending (called on this client's loop once every client is open).
    func start(context: ChannelHandlerContext) {
        started = true
        for _ in 0..<options.pipeline { sendRequest(context: context) }
        context.flush()
    }

    func sendRequest(context: ChannelHandlerContext) {
        next += 1
        // Decimal digits of the request number.
        var digits: (UInt64, Int) = (0, 0)  // reversed digits packed in a UInt64, count
        var n = next
        repeat {
            digits.0 = digits.0 << 8 | (n % 10 + 0x30)
            digits.1 += 1
            n /= 10
        } while n > 0
        let length = prefix.count + digits.1 + suffix.count
        var frame = context.channel.allocator.buffer(capacity: length + 8)
        frame.writeInteger(UInt8(0x81))
        if length < 126 {
            frame.writeInteger(UInt8(0x80 | length))
        } else {
            frame.writeInteger(UInt8(0x80 | 126))
            frame.writeInteger(UInt16(length))
        }
        frame.writeInteger(mask)
        let start = frame.writerIndex
        frame.writeBytes(prefix)
        for _ in 0..<digits.1 {
            frame.writeInteger(UInt8(truncatingIfNeeded: digits.0))
            digits.0 >>= 8
        }
        frame.writeBytes(suffix)
        let offset = start - frame.readerIndex
        let key = maskKey
        frame.withUnsafeMutableReadableBytes { raw in
            for i in 0..<length { raw[offset + i] ^= key[i & 3] }
        }
        inFlight[next] = nowNanoseconds()
        context.write(wrapOutboundOut(frame), promise: nil)
        needsFlush = true
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        buffer.writeBuffer(&incoming)
        if !upgraded {
            guard let end = buffer.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8)) else { return }
            let head = buffer.readString(length: end.upperBound - buffer.readerIndex) ?? ""
            guard head.hasPrefix("HTTP/1.1 101") else {
                context.close(promise: nil)  // fails `opened` in channelInactive
                return
            }
            upgraded = true
            opened.succeed(())
        }
        // Complete server frames (unmasked): text frames carry answers; the rest is skipped.
        var answers: [UInt64] = []
        let consumed = buffer.withUnsafeReadableBytes { raw -> Int in
            var at = 0
            while raw.count - at >= 2 {
                let b0 = raw[at], b1 = raw[at + 1]
                var length = Int(b1 & 0x7F)
                var header = 2
                if length == 126 {
                    guard raw.count - at >= 4 else { break }
                    length = Int(raw[at + 2]) << 8 | Int(raw[at + 3])
                    header = 4
                } else if length == 127 {
                    guard raw.count - at >= 10 else { break }
                    length = 0
                    for i in 2..<10 { length = length << 8 | Int(raw[at + i]) }
                    header = 10
                }
                guard raw.count - at >= header + length else { break }
                let payload = at + header
                at = payload + length
                if b0 & 0x0F == 0x8 { closeRequested = true; break }
                guard b0 & 0x0F == 0x1, length > prefix.count else { continue }
                // Our answers (and echoes) start with {"version":"1.0","correlationId":"c<index>-<n>".
                var same = true
                for i in 0..<prefix.count where raw[payload + i] != prefix[i] { same = false; break }
                guard same else { continue }
                var n: UInt64 = 0
                var i = payload + prefix.count
                while i < at, raw[i] >= 0x30, raw[i] <= 0x39 {
                    n = n * 10 + UInt64(raw[i] - 0x30)
                    i += 1
                }
                answers.append(n)
            }
            return at
        }
        buffer.moveReaderIndex(forwardBy: consumed)
        for n in answers { handle(n, context: context) }
        if closeRequested { context.close(promise: nil) }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        buffer.discardReadBytes()
        if needsFlush {
            needsFlush = false
            context.flush()
        }
    }

    func handle(_ n: UInt64, context: ChannelHandlerContext) {
        guard let t0 = inFlight.removeValue(forKey: n) else { return }
        let t = nowNanoseconds()
        latencies.append(t - t0)
        if t < clock.deadline {
            sendRequest(context: context)
        } else if inFlight.isEmpty {
            finish()
            context.close(promise: nil)
        }
    }

    func finish() {
        guard !done else { return }
        done = true
        finished.succeed(latencies)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !upgraded { opened.fail(ChannelError.ioOnClosedChannel) }
        finish()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        FileHandle.standardError.write(Data("client \(index): \(error)\n".utf8))
        context.close(promise: nil)
    }
}

let options = parse()
let group = MultiThreadedEventLoopGroup(numberOfThreads: options.threads)
let clock = Clock()
var channels: [(Channel, LoadClient)] = []
var finishedFutures: [EventLoopFuture<[UInt64]>] = []
var openedFutures: [EventLoopFuture<Void>] = []
for c in 0..<options.clients {
    let loop = group.next()
    let opened = loop.makePromise(of: Void.self)
    let finished = loop.makePromise(of: [UInt64].self)
    let client = LoadClient(index: c, options: options, clock: clock, opened: opened, finished: finished)
    let channel: Channel
    do {
        channel = try ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { ch in ch.eventLoop.makeCompletedFuture { try ch.pipeline.syncOperations.addHandler(client) } }
            .connect(host: options.host, port: options.port).wait()
    } catch {
        FileHandle.standardError.write(Data("client \(c): cannot connect: \(error)\n".utf8))
        exit(2)
    }
    channels.append((channel, client))
    openedFutures.append(opened.futureResult)
    finishedFutures.append(finished.futureResult)
}
for (c, f) in openedFutures.enumerated() {
    do { try f.wait() } catch {
        FileHandle.standardError.write(Data("client \(c): upgrade failed: \(error)\n".utf8))
        exit(2)
    }
}
let start = nowNanoseconds()
clock.deadline = start + UInt64(options.seconds * 1e9)
for (channel, client) in channels {
    channel.eventLoop.execute {
        let context = try! channel.pipeline.syncOperations.context(handlerType: LoadClient.self)
        client.start(context: context)
    }
}
var all: [UInt64] = []
for f in finishedFutures { all += (try? f.wait()) ?? [] }
let elapsed = Double(nowNanoseconds() - start) / 1e9
for (channel, _) in channels { try? channel.close().wait() }
try? group.syncShutdownGracefully()

let sorted = all.sorted()
func pct(_ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1e6
}
let rps = Double(sorted.count) / max(elapsed, 1e-9)
print(#"{"clients":\#(options.clients),"pipeline":\#(options.pipeline),"seconds":\#(String(format: "%.3f", elapsed)),"roundTrips":\#(sorted.count),"roundTripsPerSecond":\#(Int(rps)),"p50ms":\#(String(format: "%.3f", pct(0.5))),"p99ms":\#(String(format: "%.3f", pct(0.99))),"maxms":\#(String(format: "%.3f", pct(1.0)))}"#)
