import BridgeCapture
import BridgeTransport

/// A WebKit inspector HTTP server (`http://HOST:PORT`, started by
/// `WEBKIT_INSPECTOR_HTTP_SERVER=HOST:PORT` in a WebKitGTK app or `bridgescope-webkit
/// --inspector`; an iOS WKWebView through ios_webkit_debug_proxy) and its pages, read
/// from the HTML page list at `/` (``WebInspectorPageList``) with the DevTools
/// recorder's small blocking HTTP client. Errors name the endpoint and what to do.
package struct WebInspectorEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The address (parsed like `--cdp`'s).
    package var address: CDPEndpoint

    /// The largest page list read: 4 MiB.
    static let maxResponseBytes = 4 << 20

    /// What to do when there is no inspector to talk to.
    static let advice = "start the app with WEBKIT_INSPECTOR_HTTP_SERVER=HOST:PORT, or bridgescope-webkit --inspector HOST:PORT"

    /// Parses `http://HOST:PORT`; nil otherwise.
    package init?(_ text: String) {
        guard let address = CDPEndpoint(text) else { return nil }
        self.address = address
    }

    /// The inspector at `address`.
    package init(address: CDPEndpoint) {
        self.address = address
    }

    /// `http://host:port`.
    package var description: String { address.description }

    /// The pages listed now. Throws ``CaptureError`` (kind `webkit`) when the endpoint
    /// cannot be reached or does not answer like WebKit's inspector server.
    package func pages() throws(CaptureError) -> [WebInspectorPageList.Page] {
        let response: [UInt8]
        do {
            response = try CDPHTTP.get(host: address.host, port: address.port, path: "/", maxBytes: Self.maxResponseBytes, timeout: 5)
        } catch {
            // CDPHTTP's own advice is about Chromium: keep its first part ("cannot connect to ...: Connection refused").
            var why = Substring(error.message.split(separator: "(").first ?? Substring(error.message))
            while why.last == " " { why = why.dropLast() }
            throw CaptureError(.webkit, "\(why) (no WebKit inspector at \(self): \(Self.advice))")
        }
        guard let split = response.firstRange(of: [13, 10, 13, 10]) else {
            throw CaptureError(.webkit, "\(self)/: the answer is not HTTP: not a WebKit inspector server (\(Self.advice))")
        }
        let head = String(decoding: response[..<split.lowerBound], as: UTF8.self)
        let line = head.split(separator: "\r\n").first.map(String.init) ?? head
        guard head.hasPrefix("HTTP/1."), head.split(separator: " ", maxSplits: 2).dropFirst().first == "200" else {
            throw CaptureError(.webkit, "\(self)/ answered \"\(line)\": not a WebKit inspector server (\(Self.advice))")
        }
        let body = Array(response[split.upperBound...])
        let list = WebInspectorPageList(html: body)
        if list.pages.isEmpty && !String(decoding: body.prefix(4096), as: UTF8.self).contains("Inspectable targets") {
            throw CaptureError(.webkit, "\(self)/ is not a WebKit inspector page list (no \"Inspectable targets\", no "
                + "/socket/N/N/WebPage): \(Self.advice)")
        }
        return list.pages
    }

    /// The WebSocket of a listed page.
    package func socket(_ page: WebInspectorPageList.Page) -> WebSocketURL? {
        WebSocketURL("ws://\(address.host.contains(":") ? "[\(address.host)]" : address.host):\(address.port)\(page.socketPath)")
    }
}

extension CaptureError.Kind {
    /// The WebKit inspector endpoint could not be reached, is not WebKit's, or failed.
    public static let webkit = CaptureError.Kind(rawValue: "webkit")
}
