import BridgeJSON
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One message read from a tap log line.
public struct TapMessage: Sendable, Hashable {
    /// 1-based line number in the tap log.
    public var line: Int
    /// Capture time in nanoseconds since the Unix epoch (converted from ms when small).
    public var time: Int64
    /// `dir`.
    public var direction: ArchiveDirection
    /// `conn`, when the line has one.
    public var connection: String?
    /// The message bytes: the raw bytes of the `msg` value as they appear in the line,
    /// the UTF-8 of the `text` string, or the decoded `b64` string.
    public var payload: [UInt8]
}

/// A capture event read from a tap log line (`"event": "open"|"close"|"gap"|"drop"|"error"`,
/// docs/FORMAT.md §9): the app's own account of a connection opening or closing, or of
/// what it could not record.
public struct TapEvent: Sendable, Hashable {
    /// 1-based line number in the tap log.
    public var line: Int
    /// The event, as the archive writes it (its `seq` is assigned by the writer).
    public var event: ArchiveEvent
    /// For a field tap's file header (`"event":"tap"`, docs/TAP.md §1): the file's `seq`.
    public var fileSequence: Int? = nil
    /// For a file header: whether it is the first file its tap wrote (`"first":true`).
    public var firstFile = false
    /// For a file header: the tap's platform (`"tap"`: `swift`, `java`, `js`), whose files
    /// are numbered on their own (a two-sided import holds a page's tap and an app's).
    public var tapPlatform: String? = nil
}

/// A tap log line that could not be imported.
public struct TapLineError: Error, Sendable, Hashable {
    /// 1-based line number in the tap log.
    public var line: Int
    /// What is wrong with it.
    public var reason: String
    /// Whether the line's message was imported all the same (only its `crossing` member
    /// was malformed: the entry after this one is the message).
    public var messageImported = false
}

/// Parses an in-app tap log (docs/FORMAT.md §9): newline-delimited JSON, one object
/// per message:
/// `{"t": <epoch ms or ns>, "dir": "w2h"|"h2w", "conn"?: string, "msg": <envelope>}`,
/// or `"text": "<raw string>"` (or `"b64": "<base64>"`) instead of `msg`; event lines
/// (`"event": "open"|...`) become ``TapEvent``s; a line with a `"bridgescope"` member
/// (an archive's header or trailer, as `zstdcat` prints them) is skipped. A message
/// line with a `crossing` member gives two entries, in this order: a `crossing`
/// ``TapEvent`` (``TapCrossing``; or a ``TapLineError`` when the member is malformed),
/// then the message. The one parser of the format: `record --tap`, `record --cdp` and
/// `analyze` all read through it.
///
/// A value type fed bytes in chunks of any size: ``feed(_:)`` returns what the complete
/// lines held, ``finish()`` handles a last line without a newline. A bad line becomes a
/// ``TapLineError`` with its line number and parsing goes on. Blank lines are skipped; a
/// CR before the LF is ignored.
///
/// Limits: a line longer than ``maxLineBytes`` is skipped to its newline without being
/// buffered, and reported; the `msg` value may nest 64 levels deep (the line object is
/// one more).
public struct TapLogParser: Sendable {
    /// What one line gave.
    public enum Entry: Sendable, Hashable {
        /// A message.
        case message(TapMessage)
        /// A capture event line, or the `crossing` event of a message line (which then
        /// follows it).
        case event(TapEvent)
        /// A line that could not be imported.
        case error(TapLineError)
    }

    /// `t` values at or above 10^15 are nanoseconds, below are milliseconds. 10^15 ns is
    /// 1970-01-12 and 10^15 ms is the year 33658, so no plausible capture time is
    /// ambiguous. Milliseconds above 9,223,372,036,854 (year 2262) do not fit in 64-bit
    /// nanoseconds and are rejected.
    static let nanosecondThreshold: Int64 = 1_000_000_000_000_000

    /// The longest line buffered. Default ``BridgeArchiveFormat/maxLineBytes`` (64 MiB).
    public let maxLineBytes: Int
    /// Lines seen so far (complete ones, blank and skipped included).
    public private(set) var lineNumber = 0

    private var pending: [UInt8] = []
    private var discarding = false
    let limits: JSONLimits

    /// Creates a parser.
    public init(maxLineBytes: Int = BridgeArchiveFormat.maxLineBytes) {
        self.maxLineBytes = max(1, maxLineBytes)
        self.limits = JSONLimits(maxInputBytes: self.maxLineBytes, maxDepth: BridgeArchiveFormat.messageLimits.maxDepth + 1,
                                 maxStringBytes: self.maxLineBytes)
    }

    /// Feeds the next bytes of the log; returns the entries of the lines they completed.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [Entry] {
        var out: [Entry] = []
        var start = 0
        while start < bytes.count {
            let found = memchr(bytes.baseAddress! + start, 0x0A, bytes.count - start)
            let end = found.map { bytes.baseAddress!.distance(to: UnsafeRawPointer($0)) } ?? bytes.count
            let segment = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            if !discarding {
                if pending.count + segment.count > maxLineBytes {
                    discarding = true
                    pending.removeAll()
                } else if found != nil && pending.isEmpty {
                    lineNumber += 1
                    out += parseLine(segment, number: lineNumber)
                } else {
                    pending.append(contentsOf: segment)
                    if found != nil {
                        lineNumber += 1
                        let line = pending
                        pending.removeAll(keepingCapacity: pending.capacity <= 1 << 20)
                        out += line.withUnsafeBytes { parseLine($0, number: lineNumber) }
                    }
                }
            }
            if found != nil && discarding {
                lineNumber += 1
                discarding = false
                out.append(.error(TapLineError(line: lineNumber, reason: "line is longer than \(maxLineBytes) bytes; skipped")))
            }
            start = found != nil ? end + 1 : bytes.count
        }
        return out
    }

    /// Feeds bytes held in an array.
    public mutating func feed(_ bytes: [UInt8]) -> [Entry] {
        bytes.withUnsafeBytes { feed($0) }
    }

    /// Ends the log: a last line without a newline is parsed too.
    public mutating func finish() -> [Entry] {
        if discarding {
            discarding = false
            lineNumber += 1
            return [.error(TapLineError(line: lineNumber, reason: "line is longer than \(maxLineBytes) bytes; skipped"))]
        }
        guard !pending.isEmpty else { return [] }
        lineNumber += 1
        let line = pending
        pending.removeAll()
        return line.withUnsafeBytes { parseLine($0, number: lineNumber) }
    }
}
