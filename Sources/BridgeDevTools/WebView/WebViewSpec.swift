import BridgeCapture
import BridgeTransport
#if canImport(Glibc)
import Glibc
#endif

/// A WebView reached through its debugging door, as `replay --target` and `fuzz --target`
/// name it (docs/WEBVIEW-TARGETS.md): `cdp:http://HOST:PORT` (the DevTools protocol: an
/// Android debug WebView through `adb forward`, Chromium) or `webkit:http://HOST:PORT`
/// (WebKit's inspector protocol: `bridgescope-webkit --inspector`, WebKitGTK's inspector
/// server; a WKWebView through ios_webkit_debug_proxy's device port, read but not tried:
/// docs/WEBVIEW-TARGETS.md), each with an optional `#URL-SUBSTRING` choosing the page: a
/// plain substring of the URL as the page list shows it, taken as written (no
/// percent-decoding; spaces kept).
package struct WebViewSpec: Sendable, Hashable, CustomStringConvertible {
    /// Which debugging protocol.
    package enum Kind: String, Sendable, Hashable {
        /// Chrome DevTools protocol.
        case cdp
        /// WebKit's inspector protocol.
        case webkit
    }

    /// The protocol.
    package var kind: Kind
    /// The HTTP endpoint that lists the pages.
    package var endpoint: CDPEndpoint
    /// Only a page whose URL contains this (nil: the first page listed).
    package var pageFilter: String?

    /// Parses `cdp:http://HOST:PORT[#SUB]` or `webkit:http://HOST:PORT[#SUB]`; nil when
    /// `text` has neither prefix. Throws ``CaptureError`` for a bad address after one.
    package init?(parsing text: String) throws(CaptureError) {
        let kind: Kind
        if text.hasPrefix("cdp:") { kind = .cdp } else if text.hasPrefix("webkit:") { kind = .webkit } else { return nil }
        var rest = Substring(text.dropFirst(kind.rawValue.count + 1))
        var filter: String?
        if let hash = rest.firstIndex(of: "#") {
            let f = String(rest[rest.index(after: hash)...])
            guard !f.isEmpty else {
                throw CaptureError(.usage, "\(text): nothing after # (give part of the page's URL, or leave the # out)")
            }
            filter = f
            rest = rest[..<hash]
        }
        guard let endpoint = CDPEndpoint(String(rest)) else {
            throw CaptureError(.usage, "\(text): expected \(kind.rawValue):http://HOST:PORT[#URL-SUBSTRING], e.g. "
                + (kind == .cdp ? "cdp:http://127.0.0.1:9222" : "webkit:http://127.0.0.1:9333"))
        }
        self.kind = kind
        self.endpoint = endpoint
        self.pageFilter = filter
    }

    /// A spec from its parts.
    package init(kind: Kind, endpoint: CDPEndpoint, pageFilter: String? = nil) {
        self.kind = kind
        self.endpoint = endpoint
        self.pageFilter = pageFilter
    }

    /// As written: `webkit:http://127.0.0.1:9333#journey`.
    package var description: String {
        "\(kind.rawValue):\(endpoint)" + (pageFilter.map { "#\($0)" } ?? "")
    }

    /// The WebSocket of the page to drive and its URL. Throws ``CaptureError`` naming the
    /// endpoint and what to do when none is listed or reachable.
    package func page(waiting seconds: Double = 10) throws(CaptureError) -> (socket: WebSocketURL, url: String) {
        // An app (or browser) that has just started lists its page a moment after its
        // debugging port opens: a page not there yet is waited for, a port not open is not.
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while true {
            if let found = try findPage() { return found }
            guard ContinuousClock.now < deadline else { break }
            usleep(100_000)
        }
        // A page list shows URLs percent-encoded: a space or a non-ASCII letter in the filter
        // matches only the rare URL that keeps one (a data: URL's text).
        let hint = pageFilter.map { $0.contains(where: { !$0.isASCII || $0.isWhitespace }) } == true
            ? " (URLs are listed percent-encoded: write a space as %20, é as %C3%A9)" : ""
        switch kind {
        case .cdp:
            throw CaptureError(.cdp, "no page" + (pageFilter.map { " whose URL contains \"\($0)\"\(hint)" } ?? "")
                + " to attach to at \(endpoint) within \(Int(seconds)) s (a page another DevTools client holds has no WebSocket): open one in the WebView")
        case .webkit:
            throw CaptureError(.webkit, "no inspectable page" + (pageFilter.map { " whose URL contains \"\($0)\"\(hint)" } ?? "")
                + " at \(endpoint) within \(Int(seconds)) s: \(WebInspectorEndpoint.advice)")
        }
    }

    private func findPage() throws(CaptureError) -> (socket: WebSocketURL, url: String)? {
        switch kind {
        case .cdp:
            let pages = try endpoint.pages().filter { $0.type == "page" && (pageFilter.map($0.url.contains) ?? true) }
            return pages.first(where: { $0.webSocket != nil }).map { ($0.webSocket!, $0.url) }
        case .webkit:
            let inspector = WebInspectorEndpoint(address: endpoint)
            let pages = try inspector.pages().filter { pageFilter.map($0.url.contains) ?? true }
            guard let page = pages.first, let socket = inspector.socket(page) else { return nil }
            return (socket, page.url)
        }
    }
}

extension CaptureError.Kind {
    /// A target named wrongly on the command line.
    package static let usage = CaptureError.Kind(rawValue: "usage")
}
