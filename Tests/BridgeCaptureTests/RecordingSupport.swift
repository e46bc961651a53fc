import BridgeTestSupport
import BridgeArchive
import BridgeCapture
@_spi(Testing) import BridgePcap
import BridgeProxy
import BridgeTransport
import BridgeHost
import BridgeServer
import Foundation
import Logging
import Testing

/// Runs a ``RecordingSource`` into an archive on its own thread (sources block their
/// thread) until ``stop`` is raised or the source ends.
final class BackgroundRecording: @unchecked Sendable {
    let path: String
    let stop = CaptureStopSignal()
    private let done = DispatchSemaphore(value: 0)
    private(set) var trailer: ArchiveTrailer?
    private(set) var error: Error?

    init(_ source: any RecordingSource, path: String, transform: ArchiveMessageTransform? = nil) {
        self.path = path
        let box = UncheckedBox(source)
        let transformBox = UncheckedBox(transform)
        let thread = Thread { [self] in
            var s = box.value
            do {
                trailer = try ArchiveRecorder.record(&s, to: path, toolVersion: "test",
                                                     control: RecordingControl(shouldStop: stop.isRaised),
                                                     transform: transformBox.value)
            } catch {
                self.error = error
            }
            done.signal()
        }
        thread.start()
    }

    /// Raises the stop signal and waits (up to 600 s: a hang guard, not a timing; the
    /// proxy's shutdown needs the cooperative pool, which in a full `make test` on 2 cores
    /// the synchronous browser and WebKit tests can hold for minutes: at 60 s three proxy
    /// tests failed together in a clean clone's run, 2026-11-29) for the archive to be finished.
    /// Async, and never blocking a thread of the cooperative pool: the proxy's relays and
    /// its shutdown run there.
    func finish() async -> Bool {
        stop.raise()
        return await wait()
    }

    /// Waits (up to 600 s) for the source to end by itself, off the cooperative pool.
    func wait() async -> Bool {
        await offPool { self.done.wait(timeout: .now() + 600) == .success }
    }
}

/// Runs blocking work on its own thread and awaits it, so a test never blocks a thread
/// of the cooperative pool (2 threads on a 2-core machine, shared by parallel tests).
func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// Awaits `body` for at most `seconds`, on a timer off the cooperative pool: past it the
/// body is cancelled and the test fails with "`what` did not finish within N s" instead
/// of hanging the whole run (a clean clone's `make test` once sat idle for 11 minutes in
/// a page-side wait of a proxy test: `ClientCloseRaceTests`). A body that ignores
/// cancellation is left behind. The default (900 s) is generous on purpose: in a full run
/// the synchronous tests that wait for processes hold the cooperative pool's two threads
/// for most of the run, and the async tests wait: in a clean clone's `make test` on 2
/// cores most of them finish after 170-190 s though they take under a second alone. The
/// bound is there to end a hang, well inside CI's 90 minutes, not to time anything.
func bounded<T: Sendable>(_ what: String, within seconds: Double = 900,
                          _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let once = ResumeOnce<T>()
    return try await withCheckedThrowingContinuation { continuation in
        once.arm(continuation)
        let work = Task {
            do { once.resume(.success(try await body())) } catch { once.resume(.failure(error)) }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            if once.resume(.failure(TestFailure("\(what) did not finish within \(seconds) s"))) { work.cancel() }
        }
    }
}

/// A continuation resumed by whichever side comes first.
private final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Error>?

    /// Called before either side starts.
    func arm(_ c: CheckedContinuation<T, Error>) {
        lock.lock()
        continuation = c
        lock.unlock()
    }

    /// Whether this call resumed it (false: the other side was first).
    @discardableResult
    func resume(_ result: Result<T, Error>) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if let c = continuation {
            continuation = nil
            c.resume(with: result)
            return true
        }
        return false
    }
}

struct UncheckedBox<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}

/// An archive's records split by direction, for comparing recordings of one exchange.
struct RecordedExchange: Equatable, CustomStringConvertible {
    /// Counts, and the first place the two directions differ from `other`'s, not the bytes.
    var description: String {
        "\(webToHost.count) w2h, \(hostToWeb.count) h2w, events \(events.map { $0.kind.rawValue + ($0.reason.map { " (\($0))" } ?? "") }), trailer \(trailer.map { "\($0.records) records, \($0.gaps) gaps, \($0.errors) errors" } ?? "none")"
    }

    var webToHost: [[UInt8]] = []
    var hostToWeb: [[UInt8]] = []
    var events: [ArchiveEvent] = []
    var trailer: ArchiveTrailer?
    var findings: [ArchiveFinding] = []

    init(webToHost: [[UInt8]] = [], hostToWeb: [[UInt8]] = []) {
        self.webToHost = webToHost
        self.hostToWeb = hostToWeb
    }

    init(archive path: String) throws {
        let reader = try ArchiveReader(path: path)
        while let item = reader.next() {
            switch item {
            case .record(let r): r.direction == .webToHost ? webToHost.append(r.payload) : hostToWeb.append(r.payload)
            case .event(let e): events.append(e)
            case .trailer(let t): trailer = t
            case .finding(let f): findings.append(f)
            }
        }
    }

    static func == (l: RecordedExchange, r: RecordedExchange) -> Bool {
        l.webToHost == r.webToHost && l.hostToWeb == r.hostToWeb
    }

    func events(_ kind: ArchiveEvent.Kind) -> [ArchiveEvent] { events.filter { $0.kind == kind } }
}

/// The reference host on a free loopback port, in this process.
final class ReferenceHost: Sendable {
    let runner: HostServerRunner
    let url: WebSocketURL
    private let task: Task<Void, Never>

    init(deflate: Bool = true) async throws {
        var logger = Logger(label: "test.host")
        logger.logLevel = .warning
        let runner = try HostServerRunner(options: .init(server: WebSocketServerConfiguration(port: 0, deflate: deflate, idleTimeout: 900), seed: 7),
                                          logger: logger)
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        task = Task {
            do {
                _ = try await runner.run { continuation.yield($0.webSocketURL) }
            } catch {
                continuation.finish()
            }
        }
        let text = try await bounded("the reference host's start") {
            var it = stream.makeAsyncIterator()
            return await it.next()
        }
        guard let text, let url = WebSocketURL(text) else { throw TestFailure("the reference host did not start") }
        self.runner = runner
        self.url = url
    }

    /// Shuts the host down; a stop that takes over 900 s is recorded as a test failure.
    func stop() async {
        do {
            try await bounded("the reference host's stop") { [self] in
                await runner.shutdown()
                await task.value
            }
        } catch {
            Issue.record("\(error)")
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// A scripted web side: `queries` capability queries sent back to back, then one
/// document capture (its response carries an image); returns what it sent and what it
/// received, in order.
enum ScriptedWebSide {
    static func request(_ i: Int, action: String = "capability.query", data: String = "{}") -> [UInt8] {
        Array(#"{"version":"1.0","correlationId":"req-\#(i)","type":"request","timestamp":1700000000000,"payload":{"action":"\#(action)","data":\#(data)}}"#.utf8)
    }

    static func run(_ url: WebSocketURL, queries: Int, deflate: Bool = true) async throws -> RecordedExchange {
        try await bounded("the scripted web side") { try await exchange(url, queries: queries, deflate: deflate) }
    }

    private static func exchange(_ url: WebSocketURL, queries: Int, deflate: Bool) async throws -> RecordedExchange {
        try await WebSocketClient.withConnection(to: url, options: WebSocketClientOptions(deflate: deflate)) { session in
            var exchange = RecordedExchange()
            var responses = 0
            var it = session.messages.makeAsyncIterator()
            for i in 0..<queries {
                let m = request(i)
                exchange.webToHost.append(m)
                try await session.send(m)
            }
            let capture = request(queries, action: "camera.document.capture", data: #"{"side":"front"}"#)
            exchange.webToHost.append(capture)
            try await session.send(capture)
            while responses < queries + 1, let m = await it.next() {
                exchange.hostToWeb.append(m)
                if String(decoding: m, as: UTF8.self).contains(#""type":"response""#) { responses += 1 }
            }
            return exchange
        }
    }
}

/// Starts tcpdump on `lo` with `filter` writing to `path`, and waits until it listens.
enum Tcpdump {
    static let path = ["/usr/bin/tcpdump", "/usr/sbin/tcpdump"].first { FileManager.default.isExecutableFile(atPath: $0) }

    static func start(filter: String, writingTo file: String) throws -> Process? {
        guard let path else { return nil }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = ["-i", "lo", "--immediate-mode", "-B", "32768", "-U", "-n", "-w", file, filter]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let ready = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            var seen = Data()
            while case let chunk = err.fileHandleForReading.availableData, !chunk.isEmpty {
                seen.append(chunk)
                if String(decoding: seen, as: UTF8.self).contains("listening on") { ready.signal(); break }
            }
        }
        guard ready.wait(timeout: .now() + 10) == .success else {
            kill(p.processIdentifier, SIGKILL)
            throw TestFailure("tcpdump did not start")
        }
        return p
    }

    /// Waits until the file decodes to at least `messages` messages (or stops growing),
    /// then ends tcpdump with SIGKILL (Foundation starts children with SIGINT/SIGTERM
    /// blocked; with -U every packet is already written).
    static func stop(_ p: Process, file: String, messages: Int) {
        var previous = -1, still = 0
        for _ in 0..<50 {
            var n = 0
            _ = try? CaptureRunner(source: .file(file)).run { if case .message = $0 { n += 1 } }
            if n >= messages { break }
            still = n == previous ? still + 1 : 0
            if still >= 3 { break }
            previous = n
            usleep(200_000)
        }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
    }
}

func temporaryPath(_ name: String) -> String {
    TestScratch.rootURL.appendingPathComponent("bridgescope-\(getpid())-\(name)").path
}
