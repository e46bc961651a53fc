#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Imports in-app tap logs (``TapLogParser``) as they are written: files, a FIFO, or
/// standard input (`-`); several files (or a directory's `*.ndjson`, in name order) are
/// read one after another into one archive, and a field tap's file numbers are checked
/// for missing files (docs/TAP.md §4). Reads incrementally with `poll(2)` (at most 250 ms per
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

    /// The path being read (`-` for standard input).
    public private(set) var path: String
    /// Every file, in the order read (directories expanded).
    public let paths: [String]
    /// `tap:<path>` (the first file and how many follow).
    public var sourceDescription: String { "tap:\(paths[0])" + (paths.count > 1 ? " (+\(paths.count - 1) files)" : "") }
    /// Taps have no capture filter.
    public var filter: String? { nil }

    private var parser = TapLogParser()
    private var fd: Int32

    /// Opens `path` for reading; `-` (or `/dev/stdin`) means standard input.
    public convenience init(path: String) throws(ArchiveError) {
        try self.init(paths: [path])
    }

    /// Opens the first of `paths` and checks that every other one is a readable tap log,
    /// before any archive is created. A directory stands for its `*.ndjson` files in name
    /// order; `-` (standard input) must be the only input.
    public init(paths given: [String]) throws(ArchiveError) {
        let paths = try Self.expand(given)
        self.paths = paths
        self.path = paths[0]
        fd = 0
        if path != "-" {
            for p in paths.reversed() {
                if fd > 0 { _ = close(fd) }
                fd = open(p, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { throw ArchiveError.system("open for reading", path: p) }
                try Self.checkIsTapLog(fd, path: p)
            }
        }
    }

    /// The files `given` names, directories expanded.
    static func expand(_ given: [String]) throws(ArchiveError) -> [String] {
        let normal = given.map { $0 == "/dev/stdin" ? "-" : $0 }
        guard !normal.isEmpty else { throw ArchiveError(.io, path: "-", "no tap log given") }
        if normal.contains("-") {
            guard normal.count == 1 else { throw ArchiveError(.io, path: "-", "standard input (-) must be the only tap log") }
            return normal
        }
        var out: [String] = []
        for p in normal {
            var st = stat()
            guard stat(p, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { out.append(p); continue }
            guard let dir = opendir(p) else { throw ArchiveError.system("open the directory", path: p) }
            var names: [String] = []
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name.hasSuffix(".ndjson") && !name.hasPrefix(".") { names.append(name) }
            }
            closedir(dir)
            guard !names.isEmpty else {
                throw ArchiveError(.io, path: p, "the directory holds no tap logs (*.ndjson): give the files, or the folder the app wrote them to")
            }
            out += names.sorted().map { p.hasSuffix("/") ? p + $0 : p + "/" + $0 }
        }
        return out
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
            throw ArchiveError(.io, path: path, "it is a directory inside a directory: give the tap log files")
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

    /// Imports every file until its end, or until told to stop.
    public func record(into writer: ArchiveWriter, control: RecordingControl) throws(ArchiveError) {
        var state = TapImportState(lastTime: writer.header.startTime, started: control.clock.now())
        for (k, p) in paths.enumerated() {
            if k > 0 {
                if fd > 0 { _ = close(fd) }
                path = p
                parser = TapLogParser()
                fd = open(p, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { throw ArchiveError.system("open for reading", path: p) }
            }
            state.file = paths.count > 1 ? p : nil
            try recordFile(into: writer, control: control, state: &state)
            if control.shouldStop() { break }
        }
        state.report(writer: writer, control: control, force: true)
    }

    private func recordFile(into writer: ArchiveWriter, control: RecordingControl, state: inout TapImportState) throws(ArchiveError) {
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
    }
}

/// Bookkeeping of one tap import.
struct TapImportState {
    var lastTime: Int64
    let started: UInt64
    var connections: Set<String> = []
    var lastReport: UInt64 = 0
    /// The file being read, when there are several (named in error reasons).
    var file: String?
    /// The `seq` of the last field-tap file header seen.
    /// The last file number read, per tap platform (each tap numbers its own files).
    var lastFileSequence: [String: Int] = [:]

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
                if let seq = e.fileSequence,
                   let gap = fileGap(seq: seq, first: e.firstFile, tap: e.tapPlatform ?? "", time: e.event.time) {
                    try writer.append(gap)
                }
                if let c = e.event.connection { connections.insert(c) }
                try writer.append(e.event)
            case .error(let e):
                try writer.append(ArchiveEvent(time: lastTime, kind: .error, line: e.line,
                                               reason: file.map { "\($0): \(e.reason)" } ?? e.reason))
            }
        }
    }

    /// The `gap` event a field tap's file header implies, if files are missing
    /// (docs/TAP.md §4): before the first file read unless the tap began with it, and
    /// between files whose numbers do not follow.
    /// Each platform's tap numbers its own files: a page's `js` tap and an app's `swift`
    /// tap imported together (a two-sided recording) are two sequences.
    mutating func fileGap(seq: Int, first: Bool, tap: String, time: Int64) -> ArchiveEvent? {
        defer { lastFileSequence[tap] = seq }
        let reason: String
        if let last = lastFileSequence[tap] {
            guard seq != last + 1 else { return nil }
            reason = seq > last + 1
                ? "tap files \(last + 1)\(seq > last + 2 ? "-\(seq - 1)" : "") are missing (rotated away or not sent): what they held is not in this archive"
                : "tap file \(seq) comes after file \(last): the files were given out of order or come from different taps"
        } else {
            guard !first else { return nil }
            reason = "the tap's files before file \(seq) are not in this import (rotated away or not sent): the start of its recording is missing"
        }
        return ArchiveEvent(time: time, kind: .gap, reason: reason)
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
