/// A libpcap link-layer header type (the `DLT_*` value `pcap_datalink` returns, or the
/// `LINKTYPE_*` value of a file where they differ). An open set: unknown types are
/// represented and reported, not a decode failure.
public struct LinkType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The numeric value.
    public let rawValue: Int32
    /// Wraps a numeric value.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// DLT_NULL (0): BSD loopback, a 4-byte protocol family in the capturing host's byte order.
    public static let null = LinkType(rawValue: 0)
    /// DLT_EN10MB (1): Ethernet (also Linux `lo`, with zeroed addresses).
    public static let ethernet = LinkType(rawValue: 1)
    /// DLT_RAW as most systems number it (12): raw IPv4 or IPv6, no link header.
    public static let raw = LinkType(rawValue: 12)
    /// DLT_RAW as OpenBSD numbers it (14).
    public static let rawOpenBSD = LinkType(rawValue: 14)
    /// LINKTYPE_RAW (101): raw IP as written in files.
    public static let linktypeRaw = LinkType(rawValue: 101)
    /// DLT_LOOP (108): OpenBSD loopback, a 4-byte protocol family in network byte order.
    public static let loop = LinkType(rawValue: 108)
    /// DLT_LINUX_SLL (113): Linux "cooked" capture (the `any` interface), 16-byte header.
    public static let linuxSLL = LinkType(rawValue: 113)
    /// DLT_IPV4 (228): raw IPv4.
    public static let ipv4 = LinkType(rawValue: 228)
    /// DLT_IPV6 (229): raw IPv6.
    public static let ipv6 = LinkType(rawValue: 229)
    /// DLT_LINUX_SLL2 (276): Linux cooked capture v2, 20-byte header.
    public static let linuxSLL2 = LinkType(rawValue: 276)

    /// Whether ``LinkLayer`` can decode this type.
    public var isSupported: Bool {
        switch self {
        case .null, .ethernet, .raw, .rawOpenBSD, .linktypeRaw, .loop, .linuxSLL, .ipv4, .ipv6, .linuxSLL2: return true
        default: return false
        }
    }

    /// A short name such as `EN10MB` (the libpcap spelling), or the number.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .ethernet: return "EN10MB"
        case .raw, .rawOpenBSD, .linktypeRaw: return "RAW"
        case .loop: return "LOOP"
        case .linuxSLL: return "LINUX_SLL"
        case .ipv4: return "IPV4"
        case .ipv6: return "IPV6"
        case .linuxSLL2: return "LINUX_SLL2"
        default: return "link type \(rawValue)"
        }
    }
}
