/// An IPv4 or IPv6 address as read from a packet.
public enum IPAddress: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// An IPv4 address, most significant byte first.
    case v4(UInt32)
    /// An IPv6 address as two 64-bit halves, most significant first.
    case v6(UInt64, UInt64)

    /// Dotted quad for IPv4; RFC 5952 text (lowercase, longest zero run as `::`) for IPv6.
    public var description: String {
        switch self {
        case .v4(let a):
            return "\(a >> 24).\(a >> 16 & 0xFF).\(a >> 8 & 0xFF).\(a & 0xFF)"
        case .v6(let hi, let lo):
            let groups = (0..<8).map { i -> UInt16 in
                let half = i < 4 ? hi : lo
                return UInt16(truncatingIfNeeded: half >> UInt64((3 - i % 4) * 16))
            }
            // Longest run of at least two zero groups becomes "::".
            var bestStart = -1, bestLen = 0, i = 0
            while i < 8 {
                if groups[i] == 0 {
                    var j = i
                    while j < 8 && groups[j] == 0 { j += 1 }
                    if j - i > bestLen && j - i >= 2 { bestStart = i; bestLen = j - i }
                    i = j
                } else { i += 1 }
            }
            func hex(_ r: Range<Int>) -> String { r.map { String(groups[$0], radix: 16) }.joined(separator: ":") }
            if bestStart < 0 { return hex(0..<8) }
            return hex(0..<bestStart) + "::" + hex((bestStart + bestLen)..<8)
        }
    }

    /// Orders IPv4 before IPv6, then numerically (used to name flows canonically).
    public static func < (l: IPAddress, r: IPAddress) -> Bool {
        switch (l, r) {
        case (.v4(let a), .v4(let b)): return a < b
        case (.v4, .v6): return true
        case (.v6, .v4): return false
        case (.v6(let a1, let a2), .v6(let b1, let b2)): return (a1, a2) < (b1, b2)
        }
    }
}

/// An address and TCP port: one end of a connection.
public struct Endpoint: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The IP address.
    public var address: IPAddress
    /// The TCP port.
    public var port: UInt16

    /// Creates an endpoint.
    public init(address: IPAddress, port: UInt16) {
        self.address = address
        self.port = port
    }

    /// `127.0.0.1:8787`, or `[::1]:8787` for IPv6.
    public var description: String {
        switch address {
        case .v4: return "\(address):\(port)"
        case .v6: return "[\(address)]:\(port)"
        }
    }

    /// Orders by address, then port.
    public static func < (l: Endpoint, r: Endpoint) -> Bool {
        if l.address != r.address { return l.address < r.address }
        return l.port < r.port
    }
}

/// The two ends of a TCP connection once roles are known: the client is the web side
/// (it sent the HTTP upgrade request, or masks its frames).
public struct ConnectionEndpoints: Sendable, Hashable, CustomStringConvertible {
    /// The web side (WebSocket client).
    public var client: Endpoint
    /// The host side (WebSocket server).
    public var server: Endpoint

    /// Creates the pair.
    public init(client: Endpoint, server: Endpoint) {
        self.client = client
        self.server = server
    }

    /// The connection id: `client-server`, e.g. `127.0.0.1:50412-127.0.0.1:8787`.
    public var description: String { "\(client)-\(server)" }
}
