/// Where traces go: an OTLP/HTTP URL, `http://HOST[:PORT][/PATH]`.
///
/// As `OTEL_EXPORTER_OTLP_ENDPOINT` does, a URL without a path (or `/`) means the
/// collector's base address and gets `/v1/traces`; a URL with a path is used as given
/// (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`). The port defaults to 4318, the OTLP/HTTP
/// port. `https` is refused with a sentence: this build has no TLS (run a collector on
/// loopback or in the same network and let it forward over TLS; docs/OTLP.md).
public struct OTLPEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The host name or address.
    public var host: String
    /// The TCP port.
    public var port: Int
    /// The request path, `/v1/traces` by default.
    public var path: String

    /// The collector's default OTLP/HTTP port.
    public static let defaultPort = 4318

    /// Parses `url`; throws ``OTLPError`` (`bad-endpoint`) with the reason.
    public init(_ url: String) throws(OTLPError) {
        var rest = Substring(url)
        if rest.lowercased().hasPrefix("https://") {
            throw OTLPError(.badEndpoint, "\(url): https is not supported by this build (no TLS); send to a collector over http:// (docs/OTLP.md)")
        }
        guard rest.lowercased().hasPrefix("http://") else {
            throw OTLPError(.badEndpoint, "\(url): give an http:// URL, e.g. http://127.0.0.1:4318")
        }
        rest = rest.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        var host = Substring(authority)
        var port = Self.defaultPort
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw OTLPError(.badEndpoint, "\(url): unclosed [ in the IPv6 address")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { port = try Self.port(after.dropFirst(), url) }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = try Self.port(authority[authority.index(after: colon)...], url)
        }
        guard !host.isEmpty else { throw OTLPError(.badEndpoint, "\(url): no host") }
        self.host = String(host)
        self.port = port
        self.path = path.isEmpty || path == "/" ? "/v1/traces" : String(path)
    }

    private static func port(_ text: Substring, _ url: String) throws(OTLPError) -> Int {
        guard let p = Int(text), (1...65535).contains(p) else {
            throw OTLPError(.badEndpoint, "\(url): port \"\(text)\" is not a number from 1 to 65535")
        }
        return p
    }

    /// The `Host` header value.
    var hostHeader: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// `http://host:port/path`.
    public var description: String { "http://\(hostHeader)\(path)" }
}
