import BridgeCapture
import BridgeTransport
import BridgeJSON
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A DevTools HTTP endpoint (`http://HOST:PORT`) and what it offers: the browser's
/// WebSocket (`/json/version`'s `webSocketDebuggerUrl`), or only its pages
/// (`/json/list`, what Android WebViews offer). Reads them with a small blocking
/// HTTP/1.1 client (loopback or `adb forward` ports, answers of a few KiB).
public struct CDPEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// Host name or address.
    public var host: String
    /// TCP port.
    public var port: Int

    /// One page the endpoint lists.
    public struct Page: Sendable, Hashable {
        /// Target id.
        public var id: String
        /// Target type (`page`, `iframe`, `service_worker`, ...).
        public var type: String
        /// Current URL.
        public var url: String
        /// The page's own DevTools WebSocket.
        public var webSocket: WebSocketURL?
    }

    /// The largest answer read: 4 MiB.
    static let maxResponseBytes = 4 << 20

    /// Parses `http://HOST:PORT` (a trailing `/` allowed; HOST a name or address, `[…]`
    /// for IPv6; PORT 1 to 5 digits, 1...65535); nil otherwise.
    public init?(_ text: String) {
        guard text.hasPrefix("http://") else { return nil }
        var rest = Substring(text.dropFirst("http://".count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let colon = rest.lastIndex(of: ":") else { return nil }
        let digits = rest[rest.index(after: colon)...]
        guard (1...5).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let port = Int(digits), (1...65535).contains(port) else { return nil }
        var host = String(rest[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        // A host name or address: no path, user, query, fragment, bracket or space in it.
        guard !host.isEmpty, !host.contains(where: { "/@?#[]".contains($0) || $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } == true })
        else { return nil }
        self.host = host
        self.port = port
    }

    /// An endpoint on `host:port`.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `http://host:port`.
    public var description: String { "http://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// The browser's WebSocket, or nil when the endpoint offers pages only.
    public func browserWebSocket() throws(CaptureError) -> WebSocketURL? {
        let object = try getObject("/json/version")
        guard object["Browser"] != nil || object["Protocol-Version"] != nil || object["webSocketDebuggerUrl"] != nil else {
            throw CaptureError(.cdp, "\(self)/json/version is not a DevTools answer (no Browser, Protocol-Version or "
                + "webSocketDebuggerUrl member): is \(self) a browser's --remote-debugging-port?")
        }
        guard let text = object["webSocketDebuggerUrl"]?.stringValue else { return nil }
        guard let url = WebSocketURL(text) else {
            throw CaptureError(.cdp, "\(self)/json/version gives a webSocketDebuggerUrl bridgescope cannot use: \(text)")
        }
        return url
    }

    /// The targets `/json/list` names.
    public func pages() throws(CaptureError) -> [Page] {
        let value = try get("/json/list")
        guard case .array(let items) = value else {
            throw CaptureError(.cdp, "\(self)/json/list is not a DevTools answer (a \(value.kindName), not an array)")
        }
        return items.compactMap { item in
            guard let o = item.objectValue, let id = o["id"]?.stringValue else { return nil }
            return Page(id: id, type: o["type"]?.stringValue ?? "other", url: o["url"]?.stringValue ?? "",
                        webSocket: o["webSocketDebuggerUrl"]?.stringValue.flatMap(WebSocketURL.init))
        }
    }

    func getObject(_ path: String) throws(CaptureError) -> JSONObject {
        let value = try get(path)
        guard let object = value.objectValue else {
            throw CaptureError(.cdp, "\(self)\(path) is not a DevTools answer (a \(value.kindName), not an object)")
        }
        return object
    }

    /// GETs `path` and parses the body as JSON.
    func get(_ path: String) throws(CaptureError) -> JSONValue {
        let body = try fetch(path)
        do {
            return try JSONParser().parse(body).value
        } catch {
            let start = String(decoding: body.prefix(60), as: UTF8.self)
            throw CaptureError(.cdp, "\(self)\(path) is not a DevTools answer: not JSON (\(error)); it starts "
                + "\"\(start)\". Is \(self) a browser's --remote-debugging-port?")
        }
    }

    /// The body of a `200` answer to `GET path`.
    func fetch(_ path: String) throws(CaptureError) -> [UInt8] {
        let response = try CDPHTTP.get(host: host, port: port, path: path, maxBytes: Self.maxResponseBytes, timeout: 5)
        guard let split = response.firstRange(of: [13, 10, 13, 10]) else {
            throw CaptureError(.cdp, "\(self)\(path): the answer is not HTTP (no header end in \(response.count) bytes)")
        }
        let head = String(decoding: response[..<split.lowerBound], as: UTF8.self)
        let status = head.split(separator: " ", maxSplits: 2).dropFirst().first.map(String.init) ?? "?"
        guard head.hasPrefix("HTTP/1."), status == "200" else {
            let line = head.split(separator: "\r\n").first.map(String.init) ?? head
            throw CaptureError(.cdp, "\(self)\(path) answered \"\(line)\": not a DevTools endpoint "
                + "(a browser started with --remote-debugging-port, or an adb-forwarded WebView socket)")
        }
        return Array(response[split.upperBound...])
    }
}

extension CaptureError.Kind {
    /// The DevTools endpoint could not be reached, is not DevTools, or failed.
    public static let cdp = CaptureError.Kind(rawValue: "cdp")
}
