/// How a ``BridgeTap`` stores what it records (docs/TAP.md §3). The defaults suit an app:
/// at most 5 files of 8 MiB, a queue of 4,096 lines or 16 MiB, redaction on.
public struct TapConfiguration: Sendable {
    /// The directory the files go to (created if missing).
    public var directory: String
    /// File names are `<prefix>-<seq, 6 digits>.ndjson`.
    public var prefix: String = "bridge"
    /// Lines the queue holds before messages are dropped (counted).
    public var maxQueueLines: Int = 4096
    /// Bytes the queue holds before messages are dropped (counted).
    public var maxQueueBytes: Int = 16 << 20
    /// A message whose line is longer is dropped (counted).
    public var maxLineBytes: Int = 16 << 20
    /// A file is closed and the next one started before it would grow past this size.
    public var maxFileBytes: Int = 8 << 20
    /// The newest files kept; older ones are deleted when a new one starts.
    public var maxFiles: Int = 5
    /// Keeps image and biometric fields instead of replacing them by markers.
    public var keepSensitiveFields: Bool = false
    /// How often the writer looks at the queue, in milliseconds (1...250): the longest a
    /// line waits before it is written.
    public var writeIntervalMilliseconds: Int = 100
    /// Called on the writer's thread for each distinct failure (a full disk, a directory
    /// that cannot be written); never for one already reported until writing works again.
    public var onError: (@Sendable (TapError) -> Void)?

    /// A configuration writing to `directory` with the defaults.
    public init(directory: String) {
        self.directory = directory
    }
}

/// A failure of the tap's writer, reported through ``TapConfiguration/onError``.
public struct TapError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed, with the path and the system's reason.
    public var message: String

    /// An error saying `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// ``message``.
    public var description: String { message }
}
