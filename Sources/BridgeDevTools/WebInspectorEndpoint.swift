import BridgeCapture
import BridgeTransport

/// A WebKit inspector HTTP server and its pages (docs/CDP.md, "WebKit"), read with the
/// DevTools recorder's small blocking HTTP client. Two kinds are read:
///
/// - WebKit's own (`WEBKIT_INSPECTOR_HTTP_SERVER=HOST:PORT` in a WebKitGTK app,
///   `bridgescope-webkit --inspector`): an HTML page list at `/`, no `/json`
///   (``WebInspectorPageList/init(html:)``);
/// - ios_webkit_debug_proxy in front of an iOS device or Simulator: a JSON page list at
///   `/json` on each device's port (``WebInspectorPageList/listing(json:)``); read in its
///   source, not tried against a device.
///
/// `/` is read first; when it is not WebKit's HTML list, `/json` is read. Both answers are bounded by ``maxResponseBytes`` and 5 s. Errors name the
/// endpoint and what to do.
package struct WebInspectorEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The address (parsed like `--cdp`'s).
    package var address: CDPEndpoint

    /// The largest page list read: 4 MiB.
    static let maxResponseBytes = 4 << 20

    /// What to do when there is no inspector to talk to.
    static let advice = "start the app with WEBKIT_INSPECTOR_HTTP_SERVER=HOST:PORT, or bridgescope-webkit --inspector HOST:PORT; "
        + "for an iOS device or Simulator, run ios_webkit_debug_proxy -c null:9221,:9222-9322 and give the device's port "
        + "(http://127.0.0.1:9222)"

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
    /// cannot be reached or lists pages in neither form.
    package func pages() throws(CaptureError) -> [WebInspectorPageList.Page] {
        let rootWhy: String
        let root: Answer
        do {
            root = try get("/")
        } catch {
            throw CaptureError(.webkit, "\(error.message) (no WebKit inspector at \(self): \(Self.advice))")
        }
        switch root {
        case .ok(let body):
            let list = WebInspectorPageList(html: body)
            // WebKit's own list, even with no page now: it has no /json (WebKitGTK answers 404 and
            // logs a warning in the app for each try), so it is not asked.
            if !list.pages.isEmpty || String(decoding: body.prefix(4096), as: UTF8.self).contains("Inspectable targets") {
                return list.pages
            }
            rootWhy = "is not a WebKit inspector page list (no \"Inspectable targets\", no /socket/N/N/WebPage)"
        case .status(let line):
            rootWhy = "answered \"\(line)\""
        }
        // Not WebKit's HTML list: ios_webkit_debug_proxy's /json.
        var jsonWhy = "gave no answer"
        let json: Answer?
        do {
            json = try get("/json")
        } catch {
            json = nil
            jsonWhy = "could not be read (\(error.message))"
        }
        switch json {
        case .ok(let body)?:
            switch WebInspectorPageList.listing(json: body) {
            case .pages(let list):
                return list.pages
            case .devices(let devices):
                let each = devices.prefix(8).map { "http://\($0.url) (\($0.name))" }.joined(separator: ", ")
                throw CaptureError(.webkit, "\(self) is ios_webkit_debug_proxy's list of devices, not of pages: give a "
                    + "device's port instead" + (devices.isEmpty ? "" : ": \(each)"))
            case .devTools:
                throw CaptureError(.webkit, "\(self) is a DevTools endpoint (Chromium, an Android WebView), not WebKit's "
                    + "inspector: use --cdp \(self), or --target cdp:\(self)")
            case .unknown(let what):
                jsonWhy = "is \(what)"
            }
        case .status(let line)?:
            jsonWhy = "answered \"\(line)\""
        case nil:
            break
        }
        throw CaptureError(.webkit, "\(self)/ \(rootWhy), and \(self)/json \(jsonWhy): not a WebKit inspector server "
            + "nor ios_webkit_debug_proxy (\(Self.advice))")
    }

    /// A `GET`'s answer: the body of a `200`, or the status line of anything else.
    enum Answer {
        case ok([UInt8])
        case status(String)
    }

    /// `GET path`. Throws, with a short reason, when the endpoint cannot be reached or
    /// does not answer HTTP within the limits.
    func get(_ path: String) throws(CaptureError) -> Answer {
        let response: [UInt8]
        do {
            response = try CDPHTTP.get(host: address.host, port: address.port, path: path, maxBytes: Self.maxResponseBytes, timeout: 5)
        } catch {
            // CDPHTTP's own advice is about Chromium: keep its first part ("cannot connect to ...: Connection refused").
            var why = Substring(error.message.split(separator: "(").first ?? Substring(error.message))
            while why.last == " " { why = why.dropLast() }
            throw CaptureError(.webkit, String(why))
        }
        guard let split = response.firstRange(of: [13, 10, 13, 10]) else {
            throw CaptureError(.webkit, "\(self)\(path): the answer is not HTTP")
        }
        let head = String(decoding: response[..<split.lowerBound], as: UTF8.self)
        let line = head.split(separator: "\r\n").first.map(String.init) ?? head
        guard head.hasPrefix("HTTP/1."), head.split(separator: " ", maxSplits: 2).dropFirst().first == "200" else {
            return .status(String(line.prefix(200)))
        }
        return .ok(Array(response[split.upperBound...]))
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
