/// One captured message: a record line of an archive.
///
/// `{"seq":N,"t":<ns>,"dir":"w2h"|"h2w","conn":"<id>","msg":<bytes>}` (or `text`/`b64`
/// instead of `msg`, see ``ArchivePayloadEncoding``).
public struct ArchiveRecord: Sendable, Hashable {
    /// Sequence number, shared with events: 1 for the first line after the header, then
    /// +1 per line. Assigned by the writer.
    public var seq: Int
    /// Capture time: nanoseconds since the Unix epoch.
    public var time: Int64
    /// Which way the message travelled.
    public var direction: ArchiveDirection
    /// The connection it travelled on (any string; a recorder's own id).
    public var connection: String
    /// The message bytes exactly as captured.
    public var payload: [UInt8]
    /// How the payload was stored (set by the reader; the writer always uses
    /// `ArchivePayloadEncoding.preferred(for:)`).
    public var encoding: ArchivePayloadEncoding

    /// Creates a record; `seq` is assigned when it is written.
    public init(seq: Int = 0, time: Int64, direction: ArchiveDirection, connection: String,
                payload: [UInt8], encoding: ArchivePayloadEncoding? = nil) {
        self.seq = seq
        self.time = time
        self.direction = direction
        self.connection = connection
        self.payload = payload
        self.encoding = encoding ?? ArchivePayloadEncoding.preferred(for: payload)
    }
}
