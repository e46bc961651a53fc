/// When the writer must make what it has written readable: the archive's crash-safety
/// rule as a pure state machine fed sizes and times, returning what to do.
///
/// - Flush (`ZSTD_e_flush`, which keeps the compression context and so the ratio)
///   once ``flushBytes`` of lines are waiting.
/// - End the frame (`ZSTD_e_end`, which also flushes) once the oldest waiting line is
///   ``flushInterval`` old, and at the first line boundary after ``frameBytes`` of lines
///   went into the frame. A reader hands a frame's lines out only once its checksum is
///   verified, so a frame is what one damaged bit can cost: at a low message rate a
///   frame is what ~200 ms brought (a small recording is many frames), at a high rate
///   at most 1 MiB of lines (which costs 4% of the ratio against 4 MiB frames on
///   envelopes; 256 KiB frames would cost 19%).
/// - A process killed with SIGKILL loses at most what came after the last flush: with
///   the recording sources waking at ``deadline``, under 250 ms (200 ms plus wake-up).
public struct FlushPolicy: Sendable, Hashable {
    /// What the writer must do now.
    public enum Action: Sendable, Hashable {
        /// Nothing.
        case none
        /// Flush the compressor (the frame stays open).
        case flush
        /// End the frame (which also flushes).
        case endFrame
    }

    /// Bytes of lines after which a flush is due. Default 64 KiB (65,536).
    public var flushBytes: Int
    /// Nanoseconds a line may wait unflushed. Default 200 ms (the promise is 250 ms; the
    /// rest is for the source's wake-up and write).
    public var flushInterval: UInt64
    /// Bytes of lines after which the frame is ended. Default 1 MiB (1,048,576).
    public var frameBytes: Int

    /// Bytes written since the last flush.
    public private(set) var unflushedBytes = 0
    /// Bytes written into the current frame.
    public private(set) var frameFill = 0
    /// When the oldest unflushed line was written (nil when nothing waits).
    private(set) var oldestUnflushed: UInt64?

    /// Creates a policy with the documented defaults.
    public init(flushBytes: Int = 64 << 10, flushInterval: UInt64 = 200_000_000, frameBytes: Int = 1 << 20) {
        self.flushBytes = max(1, flushBytes)
        self.flushInterval = flushInterval
        self.frameBytes = max(1, frameBytes)
    }

    /// When a flush becomes due by time alone (nil when nothing waits).
    public var deadline: UInt64? {
        oldestUnflushed.map { $0 &+ flushInterval }
    }

    /// A line of `bytes` bytes (newline included) was handed to the compressor at `now`.
    public mutating func didWrite(bytes: Int, now: UInt64) -> Action {
        if oldestUnflushed == nil { oldestUnflushed = now }
        unflushedBytes += bytes
        frameFill += bytes
        return due(now: now)
    }

    /// What is due at `now` without writing anything (a timer tick).
    public func due(now: UInt64) -> Action {
        guard let oldest = oldestUnflushed else { return .none }
        if frameFill >= frameBytes { return .endFrame }
        if unflushedBytes >= flushBytes { return .flush }
        if now >= oldest && now - oldest >= flushInterval { return .endFrame }
        return .none
    }

    /// The writer did `action` (a flush or a frame end).
    public mutating func did(_ action: Action) {
        switch action {
        case .none: return
        case .flush: break
        case .endFrame: frameFill = 0
        }
        unflushedBytes = 0
        oldestUnflushed = nil
    }
}
