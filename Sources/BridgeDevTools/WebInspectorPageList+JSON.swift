import BridgeJSON

/// ios_webkit_debug_proxy's page list (docs/CDP.md, "WebKit"): `GET /json` (or
/// `/json/list`) on a device's port (9222 and up) answers a JSON array, one object per
/// inspectable page of the device's apps:
///
/// ```json
/// [{
///    "devtoolsFrontendUrl": "/devtools/devtools.html?ws=localhost:9222/devtools/page/1",
///    "faviconUrl": "",
///    "thumbnailUrl": "/thumb/http://127.0.0.1:8000/journey.html",
///    "title": "Journey",
///    "url": "http://127.0.0.1:8000/journey.html",
///    "webSocketDebuggerUrl": "ws://localhost:9222/devtools/page/1",
///    "appId": "PID:4242"
/// }]
/// ```
///
/// (src/ios_webkit_debug_proxy.c, `iwdp_ipages_to_text`). Its port 9221 answers the list
/// of devices instead: `[{"deviceId", "deviceName", "deviceOSVersion", "url": "localhost:9222"}]`
/// (`iwdp_iports_to_text`). A page's socket is the path of its `webSocketDebuggerUrl`,
/// `/devtools/page/<number>`, taken on the address the list was read from (the proxy
/// writes the host of the request's `Host` header and its own port, which a forwarded
/// port would get wrong). Entries without such a socket are skipped.
extension WebInspectorPageList {
    /// What a `/json` answer is.
    package enum JSONListing: Sendable, Equatable {
        /// A page list (a device port of ios_webkit_debug_proxy): its pages, possibly none.
        case pages(WebInspectorPageList)
        /// ios_webkit_debug_proxy's device list (its port 9221): each device's name and page-list address.
        case devices([Device])
        /// A DevTools list (Chromium, an Android WebView): pages with `id` and `type` and
        /// sockets that are not `/devtools/page/<number>`.
        case devTools
        /// Not a list bridgescope knows, and what it is instead.
        case unknown(String)
    }

    /// A device ios_webkit_debug_proxy lists on its port 9221.
    package struct Device: Sendable, Equatable {
        /// `deviceName` (or its `deviceId`).
        package var name: String
        /// Where its pages are listed, as written (`localhost:9222`).
        package var url: String

        /// A device as listed.
        package init(name: String, url: String) {
            self.name = name
            self.url = url
        }
    }

    /// The deepest JSON the list is parsed to: 8 (a list is an array of flat objects).
    static let maxJSONDepth = 8

    /// Reads the body of `GET /json` (at most ``WebInspectorEndpoint`` reads: 4 MiB).
    package static func listing(json body: [UInt8]) -> JSONListing {
        let parser = JSONParser(limits: JSONLimits(maxInputBytes: WebInspectorEndpoint.maxResponseBytes, maxDepth: maxJSONDepth,
                                                   maxStringBytes: WebInspectorEndpoint.maxResponseBytes))
        let value: JSONValue
        do {
            value = try parser.parse(body).value
        } catch {
            return .unknown("not JSON (\(error))")
        }
        guard case .array(let items) = value else { return .unknown("a JSON \(value.kindName), not a list") }
        var pages: [Page] = []
        var seen: Set<String> = []
        var devices: [Device] = []
        var devTools = false
        for case .object(let o) in items {
            if let ws = o["webSocketDebuggerUrl"]?.stringValue {
                guard let path = socketPath(ws) else {
                    devTools = devTools || (o["id"] != nil && o["type"] != nil)
                    continue
                }
                if seen.insert(path).inserted {
                    pages.append(Page(socketPath: path, title: o["title"]?.stringValue ?? "", url: o["url"]?.stringValue ?? ""))
                }
            } else if let id = o["deviceId"]?.stringValue, let url = o["url"]?.stringValue {
                let name = o["deviceName"]?.stringValue ?? ""
                devices.append(Device(name: name.isEmpty ? id : name, url: url))
            }
        }
        if !pages.isEmpty || items.isEmpty { return .pages(WebInspectorPageList(pages: pages)) }
        if !devices.isEmpty { return .devices(devices) }
        if devTools { return .devTools }
        return .unknown("a list of \(items.count) entries, none with a webSocketDebuggerUrl of /devtools/page/<number>")
    }

    /// The path of `ws://HOST[:PORT]/devtools/page/<1...maxDigits digits>`; nil otherwise.
    static func socketPath(_ url: String) -> String? {
        guard url.hasPrefix("ws://") else { return nil }
        let rest = url.utf8.dropFirst("ws://".count)
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let path = Array(rest[slash...])
        let prefix = Array("/devtools/page/".utf8)
        guard path.count > prefix.count, path.starts(with: prefix),
              let (digits, end) = digits(path, prefix.count), end == path.count else { return nil }
        return "/devtools/page/" + digits
    }

    /// A list of `pages` as they are.
    init(pages: [Page]) {
        self.pages = pages
    }
}
