import BridgeJSON
import CZstd
import Logging
import BridgeClock

/// Settings of an ``ArchiveWriter``.
public struct ArchiveWriterOptions: Sendable, Hashable {
    /// zstd compression level. Default 1: on envelope data it compresses better than
    /// 3 and faster (FIELD-NOTES.md).
    public var compressionLevel: Int32
    /// When to flush and when to end frames (64 KiB / 200 ms / 1 MiB by default).
    public var flushPolicy: FlushPolicy
    /// Whether each frame carries a content checksum (XXH64, 4 bytes), so a reader can
    /// tell damage inside a frame. Default on.
    public var checksum: Bool

    /// Creates options; every argument defaults to the documented default.
    public init(compressionLevel: Int32 = 1, flushPolicy: FlushPolicy = FlushPolicy(), checksum: Bool = true) {
        self.compressionLevel = compressionLevel
        self.flushPolicy = flushPolicy
        self.checksum = checksum
    }
}

/// Rewrites a message before an ``ArchiveWriter`` stores it (redaction): returns the
/// bytes to store instead, or nil to store the message as given.
public typealias ArchiveMessageTransform = (UnsafeRawBufferPointer) -> [UInt8]?

/// Writes a session archive (docs/FORMAT.md): the header at once, then one line per
/// record or event, then the trailer on ``finish(endTime:)``.
///
/// Crash safety: after each write and on ``flushIfDue(now:)`` it applies the
/// ``FlushPolicy``, so everything written more than 250 ms ago (or 64 KiB back) is
/// already in the file as complete zstd blocks. A caller that may sit idle must call
/// ``flushIfDue(now:)`` by ``flushDeadline``.
///
/// Not `Sendable`: one task owns a writer.
public final class ArchiveWriter {
    /// The header that was written.
    public let header: ArchiveHeader
    /// Running counts, as the trailer will hold them (`endTime` is set by ``finish(endTime:)``).
    public private(set) var counts = ArchiveTrailer()
    /// Whether ``finish(endTime:)`` ran.
    public private(set) var isFinished = false
    /// The `seq` the next line will get.
    public private(set) var nextSequence = 1
    /// How many flushes and frame ends were done, and the bytes in and out.
    public private(set) var statistics = ArchiveWriterStatistics()
    /// Applied to every message appended from now on (nil: none, the default). The
    /// record and the trailer's `bytes` hold what it returns.
    var messageTransform: ArchiveMessageTransform?

    private var output: FileOutput
    private let compressor: ZstdCompressor
    private var policy: FlushPolicy
    private let clock: Stopwatch
    private let encoder = ArchiveLineEncoder()
    /// Staged lines (complete, newline included) and then the line being built.
    private var line: [UInt8] = []
    /// Where the line being built starts in `line`.
    private var lineStart = 0
    /// The connection of the last record and its JSON string form.
    private var lastConnection = ""
    private var lastConnectionJSON: [UInt8] = [0x22, 0x22]
    private let logger: Logger

    /// Creates (or truncates) the file at `path` and writes the header.
    public convenience init(path: String, header: ArchiveHeader, options: ArchiveWriterOptions = .init(),
                            clock: Stopwatch = .monotonic, logger: Logger = Logger(label: "bridgescope.archive")) throws(ArchiveError) {
        try self.init(output: FileOutput(creating: path), header: header, options: options, clock: clock, logger: logger)
    }

    /// Writes to an open descriptor (closed by ``finish(endTime:)`` only if `closeWhenFinished`).
    public convenience init(fileDescriptor: Int32, name: String, closeWhenFinished: Bool, header: ArchiveHeader,
                            options: ArchiveWriterOptions = .init(), clock: Stopwatch = .monotonic,
                            logger: Logger = Logger(label: "bridgescope.archive")) throws(ArchiveError) {
        try self.init(output: FileOutput(fileDescriptor: fileDescriptor, name: name, owned: closeWhenFinished),
                      header: header, options: options, clock: clock, logger: logger)
    }

    private init(output: FileOutput, header: ArchiveHeader, options: ArchiveWriterOptions, clock: Stopwatch,
                 logger: Logger) throws(ArchiveError) {
        self.output = output
        self.header = header
        self.policy = options.flushPolicy
        self.clock = clock
        self.logger = logger
        do {
            self.compressor = try ZstdCompressor(level: options.compressionLevel, checksum: options.checksum)
        } catch {
            var out = output
            try? out.close()
            var e = error
            e.path = output.path
            throw e
        }
        line.reserveCapacity(Self.stagingBytes + 4096)
        encoder.header(header, into: &line)
        try writeLine()
        try perform(.flush)
        logger.debug("archive opened", metadata: ["path": "\(output.path)", "source": "\(header.source)"])
    }

    deinit {
        if !isFinished { try? output.close() }
    }

    /// Appends a record for a captured message and returns its `seq`. The message is
    /// stored as `msg`, `text` or `b64` (`ArchivePayloadEncoding.preferred(for:)`).
    /// A message too large for any form (over about 47 MiB) is not stored: an `error`
    /// event with its size is written instead, and that event's `seq` returned.
    @discardableResult
    public func append(time: Int64, direction: ArchiveDirection, connection: String,
                       payload: UnsafeRawBufferPointer) throws(ArchiveError) -> Int {
        if let transform = messageTransform, let replaced = transform(payload) {
            let result: Result<Int, ArchiveError> = replaced.withUnsafeBytes { p in
                do throws(ArchiveError) {
                    return .success(try store(time: time, direction: direction, connection: connection, payload: p))
                } catch { return .failure(error) }
            }
            return try result.get()
        }
        return try store(time: time, direction: direction, connection: connection, payload: payload)
    }

    private func store(time: Int64, direction: ArchiveDirection, connection: String,
                       payload: UnsafeRawBufferPointer) throws(ArchiveError) -> Int {
        try checkOpen()
        let encoding = ArchivePayloadEncoding.preferred(for: payload)
        if connection != lastConnection {
            lastConnection = connection
            lastConnectionJSON.removeAll(keepingCapacity: true)
            JSONWriter.writeString(connection, into: &lastConnectionJSON)
        }
        guard encoder.record(seq: nextSequence, time: time, direction: direction, connection: connection,
                             encodedConnection: lastConnectionJSON, payload: payload, encoding: encoding, into: &line) else {
            return try append(ArchiveEvent(time: time, kind: .error, connection: connection, direction: direction,
                                           bytes: payload.count,
                                           reason: "message of \(payload.count) bytes is too large for an archive line; not stored"))
        }
        counts.records += 1
        counts.bytes += payload.count
        return try commitLine()
    }

    /// Appends a record for a captured message held in an array and returns its `seq`.
    @discardableResult
    public func append(time: Int64, direction: ArchiveDirection, connection: String, payload: [UInt8]) throws(ArchiveError) -> Int {
        let result: Result<Int, ArchiveError> = payload.withUnsafeBytes { p in
            do throws(ArchiveError) {
                return .success(try append(time: time, direction: direction, connection: connection, payload: p))
            } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Appends an event (its `seq` is assigned here) and returns its `seq`.
    @discardableResult
    public func append(_ event: ArchiveEvent) throws(ArchiveError) -> Int {
        try checkOpen()
        var e = event
        e.seq = nextSequence
        encoder.event(e, into: &line)
        counts.count(e)
        return try commitLine()
    }

    /// When a flush becomes due by time (monotonic ns of the injected clock), or nil
    /// when nothing waits. A caller that may block should wake by then.
    public var flushDeadline: UInt64? { policy.deadline }

    /// Flushes if the policy says so at `now` (default: the injected clock's now).
    public func flushIfDue(now: UInt64? = nil) throws(ArchiveError) {
        guard !isFinished else { return }
        let action = policy.due(now: now ?? clock.now())
        if action != .none { try perform(action) }
    }

    /// Flushes now: everything written so far becomes readable.
    public func flush() throws(ArchiveError) {
        try checkOpen()
        try perform(.flush)
    }

    /// Writes the trailer, ends the frame and closes the file (when owned). Returns the
    /// trailer. `endTime` defaults to the wall clock.
    @discardableResult
    public func finish(endTime: Int64? = nil) throws(ArchiveError) -> ArchiveTrailer {
        try checkOpen()
        counts.endTime = endTime ?? WallClock.now.nanoseconds
        encoder.trailer(counts, into: &line)
        try writeLine()
        try perform(.endFrame)
        isFinished = true
        try output.close()
        logger.debug("archive finished", metadata: [
            "path": "\(output.path)", "records": "\(counts.records)", "events": "\(counts.events)",
            "in": "\(statistics.uncompressedBytes)", "out": "\(statistics.compressedBytes)",
        ])
        return counts
    }

    // MARK: internals

    private func checkOpen() throws(ArchiveError) {
        if isFinished { throw ArchiveError(.invalidState, path: output.path, "the archive is already finished") }
    }

    /// Writes the line in `line` (seq already in it), applies the policy, returns its seq.
    private func commitLine() throws(ArchiveError) -> Int {
        let seq = nextSequence
        nextSequence += 1
        try writeLine()
        return seq
    }

    /// Ends the line that starts at `lineStart` in `line`. Lines are staged in `line`
    /// and handed to the compressor together (one call per ``stagingBytes`` instead of
    /// one per line), and always before a flush: what the file holds at each flush is
    /// the same as when every line went to the compressor at once, since libzstd
    /// buffers input up to a whole block anyway.
    private func writeLine() throws(ArchiveError) {
        line.append(0x0A)
        let n = line.count - lineStart
        lineStart = line.count
        statistics.uncompressedBytes += n
        if line.count >= Self.stagingBytes { try compressStaged() }
        let action = policy.didWrite(bytes: n, now: clock.now())
        if action != .none { try perform(action) }
    }

    /// Bytes of lines staged before they are handed to the compressor.
    static let stagingBytes = 32 << 10

    private func compressStaged() throws(ArchiveError) {
        guard !line.isEmpty else { return }
        let result: Result<Void, ArchiveError> = line.withUnsafeBytes { buf in
            do throws(ArchiveError) {
                try compressor.compress(buf, ZSTD_e_continue) { (chunk) throws(ArchiveError) in try self.emit(chunk) }
                return .success(())
            } catch { return .failure(error) }
        }
        line.removeAll(keepingCapacity: line.capacity <= 1 << 20)
        lineStart = 0
        try result.get()
    }

    private func perform(_ action: FlushPolicy.Action) throws(ArchiveError) {
        try compressStaged()
        let directive = action == .endFrame ? ZSTD_e_end : ZSTD_e_flush
        try compressor.compress(UnsafeRawBufferPointer(start: nil, count: 0), directive) { (chunk) throws(ArchiveError) in
            try self.emit(chunk)
        }
        policy.did(action)
        if action == .endFrame { statistics.frames += 1 } else { statistics.flushes += 1 }
    }

    private func emit(_ chunk: UnsafeRawBufferPointer) throws(ArchiveError) {
        try output.write(chunk)
        statistics.compressedBytes += chunk.count
    }
}

/// What an ``ArchiveWriter`` did so far.
public struct ArchiveWriterStatistics: Sendable, Hashable {
    /// Line bytes handed to the compressor (newlines included).
    public var uncompressedBytes = 0
    /// Bytes written to the file.
    public var compressedBytes = 0
    /// Flushes that kept the frame open.
    public var flushes = 0
    /// Frames ended (the last one by ``ArchiveWriter/finish(endTime:)``).
    public var frames = 0

    /// Uncompressed / compressed bytes (0 before anything was written).
    public var ratio: Double {
        compressedBytes == 0 ? 0 : Double(uncompressedBytes) / Double(compressedBytes)
    }
}
