import BridgeProtocol
import BridgeWebSocket

/// The two endpoints of a TCP connection in canonical order (`low < high`); direction
/// index 0 is low → high, 1 is high → low.
struct FlowKey: Hashable {
    var low: Endpoint
    var high: Endpoint

    /// The key of a segment and its direction index.
    init(source: Endpoint, destination: Endpoint) {
        if source < destination {
            low = source
            high = destination
        } else {
            low = destination
            high = source
        }
    }

    func index(from source: Endpoint) -> Int { source == low ? 0 : 1 }
    func endpoint(_ index: Int) -> Endpoint { index == 0 ? low : high }
}

/// Everything known about one TCP connection: reassembly per direction, then HTTP
/// upgrade tracking, then WebSocket decoding per direction.
///
/// Not `Sendable`: its WebSocket decoders own zlib streams.
struct CaptureConnection {
    /// How far the connection got.
    enum Phase {
        /// No payload yet: HTTP, WebSocket without handshake, or something else.
        case undecided
        /// Following the HTTP exchange before an upgrade.
        case http
        /// WebSocket frames (after a handshake, or looked for without one).
        case websocket
        /// Not WebSocket: payload is no longer looked at.
        case ignored
    }

    let key: FlowKey
    var reassemblers: [TCPReassembler]
    var phase = Phase.undecided
    var http = HTTPUpgradeTracker()
    var decoders: [WebSocketStreamDecoder?] = [nil, nil]
    /// Direction index of client → server, once known.
    var clientIndex: Int?
    /// Set once the connection was reported open.
    var id: String?
    /// Bytes seen before the phase could be decided, per direction.
    var prelude: [[UInt8]] = [[], []]
    /// A SYN was seen: the stream starts at its beginning.
    var sawSYN = false
    /// Last activity, as a packet counter, for eviction.
    var lastActive: UInt64 = 0
    /// Directions finished by FIN, and whether RST ended the connection.
    var finished = [false, false]
    var reset = false
    /// Close frames seen, for the close event's reason.
    var closeNotes: [String] = []
    /// Directions whose probation ran out without frames.
    var gaveUp = [false, false]
    /// Why the connection was set aside, when ignored.
    var ignoredBecause: String?

    init(key: FlowKey, limits: CaptureLimits) {
        self.key = key
        self.reassemblers = [TCPReassembler(limits: limits.reassembly), TCPReassembler(limits: limits.reassembly)]
    }

    /// Whether both directions are done.
    var isClosed: Bool { reset || (finished[0] && finished[1]) }

    /// The direction of messages flowing in direction index `i` (needs `clientIndex`).
    func direction(_ i: Int) -> Direction { i == clientIndex ? .webToHost : .hostToWeb }

    /// The endpoints once roles are known.
    var endpoints: ConnectionEndpoints? {
        guard let c = clientIndex else { return nil }
        return ConnectionEndpoints(client: key.endpoint(c), server: key.endpoint(1 - c))
    }
}
