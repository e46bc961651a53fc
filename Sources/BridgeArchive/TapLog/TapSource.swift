#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Imports an in-app tap log (``TapLogParser``) as it is written: a file, a FIFO, or
/// standard input (`-`). Reads incrementally with `poll(2)` (at most 250 ms per
/// wait), so the writer's flush deadline is kept while the input is idle and a
/// recorder killed with SIGKILL loses at most the last 250 ms or 64 KiB.
///
/// Messages without `conn` are recorded on connection ``defaultConnection``; a bad
/// line becomes an `error` event with its line number (at the time of the previous
/// message) and the import goes on.
///
/// The input is opened by the initializer, so a missing file is reported before an
/// archive is created; it is closed when the source is released.
public final class TapSource: RecordingSource {
    /// The connection id given to lines without `conn`: `tap`.
    public static let defaultConnection = "tap"
    /// Bytes read per `read(2)`: 64 KiB.
    static let readSize = 64 << 10

    /// The path (`-` for standard input).
    public let path: String
    /// `tap:<path>`.
    public var sourceDescription: String { "tap:\(path)" }
    /// Taps have no capture filter.
    public var filter: String? { nil }

    private var parser = TapLogParser()
    private let fd: Int32

    /// Opens `path` for reading; `-` (or `/dev/stdin`) means standard input.
    public init(path: String) throws(ArchiveError) {
        self.path = path == "/dev/stdin" ? "-" : path
        if self.path == "-" {
            fd = 0
        } else {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw ArchiveError.system("open for reading", path: path) }
            try Self.checkIsTapLog(fd, path: path)
        }
    }

    /// A regular file is judged by its first bytes (read with `pread`, so nothing is
    /// consumed) before any archive is created: a directory, a session archive, a packet
    /// capture or bare envelopes are refused with what to do instead. A FIFO, standard
    /// input and an empty file (a log about to be written) are not judged. It never closes
    /// `fd`: the initializer's throw runs deinit, which does (closing here too closed it
    /// twice, possibly someone else's descriptor by then).
    static func checkIsTapLog(_ fd: Int32, path: String) throws(ArchiveError) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            throw ArchiveError(.io, path: path, "it is a directory: --tap takes one tap log file (or - for standard input)")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0 else { return }
        var prefix = [UInt8](repeating: 0, count: InputKind.sniffBytes)
        let n = prefix.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return }
        let kind = InputKind.sniff(Array(prefix[0..<n]))
        guard kind == .tapLog || kind == .unknown || kind == .empty else {
            throw ArchiveError(.invalidHeader, path: path, "it is \(kind), not a tap log: \(kind.advice(path: path))")
        }
    }

    deinit {
        if fd != 0 { _ = close(fd) }
    }

    /// Imports until end of input or until told to stop.
    public func record(into writer: ArchiveWriter, control: RecordingControl) throws(ArchiveError) {
        var state = TapImportState(lastTime: writer.header.startTime, started: control.clock.now())
        var buffer = [UInt8](repeating: 0, count: Self.readSize)
        while !control.shouldStop() {
            let now = control.clock.now()
            var timeout: Int32 = 250
            if let deadline = writer.flushDeadline {
                let wait = deadline > now ? (deadline - now + 999_999) / 1_000_000 : 0
                timeout = Int32(min(UInt64(timeout), wait))
            }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                throw ArchiveError.system("poll", path: path)
            }
            if ready > 0 {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    throw ArchiveError.system("read", path: path)
                }
                if n == 0 { break }
                let entries = buffer.withUnsafeBytes { parser.feed(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                try state.write(entries, to: writer)
            }
            try writer.flushIfDue(now: control.clock.now())
            state.report(writer: writer, control: control)
        }
        try state.write(parser.finish(), to: writer)
        state.report(writer: writer, control: control, force: true)
    }
}

/// Bookkeeping of one tap import.
struct TapImportState {
    var lastTime: Int64
    let started: UInt64
    var connections: Set<String> = []
    var lastReport: UInt64 = 0

    mutating func write(_ entries: [TapLogParser.Entry], to writer: ArchiveWriter) throws(ArchiveError) {
        for entry in entries {
            switch entry {
            case .message(let m):
                let conn = m.connection ?? TapSource.defaultConnection
                connections.insert(conn)
                lastTime = m.time
                try writer.append(time: m.time, direction: m.direction, connection: conn, payload: m.payload)
            case .event(let e):
                lastTime = e.event.time
                if let c = e.event.connection { connections.insert(c) }
                try writer.append(e.event)
            case .error(let e):
                try writer.append(ArchiveEvent(time: lastTime, kind: .error, line: e.line,
                                               reason: e.reason))
            }
        }
    }

    mutating func report(writer: ArchiveWriter, control: RecordingControl, force: Bool = false) {
        guard let progress = control.progress else { return }
        let now = control.clock.now()
        guard force || now &- lastReport >= control.progressInterval else { return }
        lastReport = now
        progress(RecordingProgress(messages: writer.counts.records, bytes: writer.counts.bytes,
                                   connections: connections.count, drops: writer.counts.drops,
                                   errors: writer.counts.errors, elapsed: now &- started))
    }
}
