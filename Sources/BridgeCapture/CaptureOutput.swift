import BridgeProtocol

/// What the capture decoder produces, in capture order: messages and the events that
/// make every loss visible. Times are nanoseconds since the Unix epoch (the time of the
/// packet that completed the message or caused the event).
public enum CaptureOutput: Sendable, Hashable {
    /// One WebSocket data message (inflated when it was compressed), bytes as sent.
    case message(time: Int64, direction: Direction, connection: String, bytes: [UInt8])
    /// A WebSocket connection was recognised (after its upgrade, or when frames were
    /// found in a capture that began mid-connection).
    case open(time: Int64, connection: String, endpoints: ConnectionEndpoints)
    /// A recognised connection ended: FIN, RST, eviction, or the end of the capture.
    case close(time: Int64, connection: String, reason: String)
    /// Bytes of one direction were never seen (capture loss, snapshot length, or held
    /// data given up on); decoding resynchronizes after it.
    case gap(time: Int64, connection: String, direction: Direction, bytes: Int)
    /// The capture layer dropped packets (libpcap's counters).
    case drop(time: Int64, count: Int)
    /// Something could not be decoded; `connection` is nil for capture-wide problems.
    case error(time: Int64, connection: String?, text: String)

    /// The output's time.
    public var time: Int64 {
        switch self {
        case .message(let t, _, _, _), .open(let t, _, _), .close(let t, _, _), .gap(let t, _, _, _),
             .drop(let t, _), .error(let t, _, _):
            return t
        }
    }
}
