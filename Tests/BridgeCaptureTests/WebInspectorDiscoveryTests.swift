import BridgeCapture
import BridgeDevTools
import Foundation
import Testing

/// Finding WebKit pages (``WebInspectorEndpoint``): WebKit's own HTML list at `/`, or
/// ios_webkit_debug_proxy's `/json` list when `/` is not WebKit's; with the bodies each
/// server writes (iwdp's as its source prints them: src/ios_webkit_debug_proxy.c,
/// `iwdp_ipages_to_text`, `iwdp_iports_to_text`; WebKitGTK 2.50.6's as captured).
struct WebInspectorDiscoveryTests {
    /// ios_webkit_debug_proxy's `/` on a device port, with the default frontend (`iwdp_ipages_to_text`, HTML).
    static let iwdpHTML = """
        <html><head><title>iPhone</title></head><body>Inspectable pages for <a title="00008030-001A2B3C4D5E6F70">iPhone</a>:<p><ol>
        <li value="1"><a href="/devtools/devtools.html?ws=localhost:9222/devtools/page/1" title="Journey">http://127.0.0.1:8000/journey.html</a></li>
        <li value="3"><a href="/devtools/devtools.html?ws=localhost:9222/devtools/page/3" title="Two">about:blank</a></li>
        </ol></body></html>
        """

    /// The same pages at `/json` (`iwdp_ipages_to_text`, JSON): a title with a line feed
    /// arrives as `\\u0010` (the proxy writes a control character's code in decimal).
    static let iwdpJSON = #"""
        [{
           "devtoolsFrontendUrl": "/devtools/devtools.html?ws=localhost:9222/devtools/page/1",
           "faviconUrl": "",
           "thumbnailUrl": "/thumb/http://127.0.0.1:8000/journey.html",
           "title": "Journey",
           "url": "http://127.0.0.1:8000/journey.html",
           "webSocketDebuggerUrl": "ws://localhost:9222/devtools/page/1",
           "appId": "PID:4242"
        },{
           "devtoolsFrontendUrl": "",
           "faviconUrl": "",
           "thumbnailUrl": "/thumb/about:blank",
           "title": "Two\u0010lines \"quoted\"",
           "url": "about:blank",
           "webSocketDebuggerUrl": "ws://localhost:9222/devtools/page/3",
           "appId": "PID:4242"
        }]
        """#

    /// Port 9221: the devices (`iwdp_iports_to_text`).
    static let iwdpDevices = #"""
        [{
           "deviceId": "00008030-001A2B3C4D5E6F70",
           "deviceName": "iPhone",
           "deviceOSVersion": "17.4.1",
           "url": "localhost:9222"
        },{
           "deviceId": "SIMULATOR",
           "deviceName": "",
           "deviceOSVersion": "0.0.0",
           "url": "localhost:9223"
        }]
        """#

    static let html = "text/html; charset=UTF-8", json = "application/json; charset=UTF-8"

    func endpoint(_ server: RoutedHTTPServer) -> WebInspectorEndpoint {
        WebInspectorEndpoint(address: CDPEndpoint(host: "127.0.0.1", port: server.port))
    }

    func failure(_ server: RoutedHTTPServer) -> String {
        do { _ = try endpoint(server).pages(); return "listed" } catch { return error.message }
    }

    @Test func iwdpsDevicePortListsItsPagesAtJSON() throws {
        let server = try RoutedHTTPServer(["/": (Self.html, Self.iwdpHTML), "/json": (Self.json, Self.iwdpJSON)])
        defer { server.close() }
        let pages = try endpoint(server).pages()
        #expect(pages == [
            .init(socketPath: "/devtools/page/1", title: "Journey", url: "http://127.0.0.1:8000/journey.html"),
            .init(socketPath: "/devtools/page/3", title: "Two\u{10}lines \"quoted\"", url: "about:blank"),
        ])
        #expect(server.paths == ["/", "/json"])
        // The socket is on the address the list was read from, not the proxy's "localhost:9222".
        #expect(endpoint(server).socket(pages[0])?.description == "ws://127.0.0.1:\(server.port)/devtools/page/1")
        // A page filter picks by URL, as for WebKit's own list.
        let spec = try #require(try WebViewSpec(parsing: "webkit:http://127.0.0.1:\(server.port)#journey"))
        let (socket, url) = try spec.page(waiting: 0)
        #expect(socket.description == "ws://127.0.0.1:\(server.port)/devtools/page/1" && url == "http://127.0.0.1:8000/journey.html")
    }

    @Test func iwdpWithNoPagesIsAnEmptyListThenNoPage() throws {
        let empty = "<html><head><title>iPhone</title></head><body>Inspectable pages for <a title=\"x\">iPhone</a>:<p><ol>\n</ol></body></html>"
        let server = try RoutedHTTPServer(["/": (Self.html, empty), "/json": (Self.json, "[]")])
        defer { server.close() }
        #expect(try endpoint(server).pages().isEmpty)
        let spec = try #require(try WebViewSpec(parsing: "webkit:http://127.0.0.1:\(server.port)"))
        do { _ = try spec.page(waiting: 0); Issue.record("found a page") } catch {
            #expect(error.message.contains("no inspectable page at http://127.0.0.1:\(server.port)"), "\(error.message)")
            #expect(error.message.contains("ios_webkit_debug_proxy -c null:9221,:9222-9322"), "\(error.message)")
        }
    }

    @Test func iwdpsDeviceListNamesTheDevicePorts() throws {
        let server = try RoutedHTTPServer(["/": (Self.html, "<html><head><title>iOS Devices</title></head><body>iOS Devices:<p><ol>\n</ol></body></html>"),
                                           "/json": (Self.json, Self.iwdpDevices)])
        defer { server.close() }
        let message = failure(server)
        #expect(message.contains("http://127.0.0.1:\(server.port) is ios_webkit_debug_proxy's list of devices, not of pages"), "\(message)")
        #expect(message.contains("http://localhost:9222 (iPhone), http://localhost:9223 (SIMULATOR)"), "\(message)")
    }

    /// WebKit's own list is read at `/` alone: WebKitGTK has no `/json` (it answers 404 and
    /// logs a warning in the app each time), so it is not asked, with pages or without.
    @Test func webKitsOwnListIsReadWithoutAskingForJSON() throws {
        let server = try RoutedHTTPServer(["/": (Self.html, WebKitRecordInspectorTests.realList)])
        defer { server.close() }
        #expect(try endpoint(server).pages().map(\.socketPath) == ["/socket/1/1/WebPage", "/socket/1/12/WebPage"])
        let none = try RoutedHTTPServer(["/": (Self.html, "<html><body><h1>Inspectable targets</h1><div id='targetlist'></div></body></html>")])
        defer { none.close() }
        #expect(try endpoint(none).pages().isEmpty)
        #expect(server.paths == ["/"] && none.paths == ["/"])
    }

    @Test func aDevToolsEndpointIsSentToCDP() throws {
        let chromium = #"[{"description":"","id":"9A1F","title":"j","type":"page","url":"http://a/j.html","webSocketDebuggerUrl":"ws://127.0.0.1:9222/devtools/page/9A1F"}]"#
        let server = try RoutedHTTPServer(["/json": (Self.json, chromium)])
        defer { server.close() }
        let message = failure(server)
        #expect(message.contains("is a DevTools endpoint (Chromium, an Android WebView), not WebKit's inspector: use --cdp http://127.0.0.1:"),
                "\(message)")
    }

    /// Neither list: the error names both addresses, what each answered, and what to do.
    @Test(arguments: [
        ([:], "/ answered \"HTTP/1.1 404 Not Found\", and http://127.0.0.1:PORT/json answered \"HTTP/1.1 404 Not Found\""),
        (["/": ("text/html", "<html>files</html>")], "/ is not a WebKit inspector page list (no \"Inspectable targets\", no /socket/N/N/WebPage), and"),
        (["/json": ("application/json", #"{"a":1}"#)], "/json is a JSON object, not a list"),
        (["/json": ("application/json", "<html>")], "/json is not JSON"),
        (["/json": ("application/json", "[" + String(repeating: "[", count: 20) + String(repeating: "]", count: 21))], "/json is not JSON"),   // deeper than 8
        (["/json": ("application/json", #"[{"webSocketDebuggerUrl":"ws://h/devtools/page/abc"},{"webSocketDebuggerUrl":"ws://h/devtools/page/12345678901"},"#
            + #"{"webSocketDebuggerUrl":"wss://h/devtools/page/1"},{"webSocketDebuggerUrl":"ws://h/devtools/page/1/x"},{"url":"http://a"},7]"#)],
         "/json is a list of 6 entries, none with a webSocketDebuggerUrl of /devtools/page/<number>"),
    ] as [([String: (type: String, body: String)], String)])
    func neitherListIsAnErrorThatSaysWhatToDo(_ routes: [String: (type: String, body: String)], _ expected: String) throws {
        let server = try RoutedHTTPServer(routes)
        defer { server.close() }
        let message = failure(server)
        #expect(message.contains(expected.replacingOccurrences(of: "PORT", with: "\(server.port)")), "\(message)")
        #expect(message.contains("not a WebKit inspector server nor ios_webkit_debug_proxy"), "\(message)")
        #expect(message.contains("WEBKIT_INSPECTOR_HTTP_SERVER=HOST:PORT") && message.contains("ios_webkit_debug_proxy -c null:9221,:9222-9322"))
    }

    /// A `/json` over the 4 MiB limit is not read whole.
    @Test func aListOverTheLimitIsRefused() throws {
        let big = "[" + String(repeating: #"{"webSocketDebuggerUrl":"ws://h/devtools/page/1"},"#, count: 90_000) + "7]"
        let server = try RoutedHTTPServer(["/json": (Self.json, big)])
        defer { server.close() }
        let message = failure(server)
        #expect(message.contains("/json could not be read (http://127.0.0.1:\(server.port)/json: the answer is over 4194304 bytes"), "\(message)")
    }

    @Test func nothingListeningSaysSo() {
        let port = RoutedHTTPServer.closedPort()
        do { _ = try WebInspectorEndpoint(address: CDPEndpoint(host: "127.0.0.1", port: port)).pages(); Issue.record("listed") } catch {
            #expect(error.message.hasPrefix("cannot connect to http://127.0.0.1:\(port)"), "\(error.message)")
            #expect(error.message.contains("ios_webkit_debug_proxy"), "\(error.message)")
        }
    }

    // MARK: the /json list alone

    @Test func listingReadsPagesOnceEachAndSkipsWhatItCannotUse() {
        let body = #"[{"title":"a","url":"u1","webSocketDebuggerUrl":"ws://[::1]:9222/devtools/page/2"},"#
            + #"{"title":"dup","url":"u1","webSocketDebuggerUrl":"ws://x:1/devtools/page/2"},"#
            + #"{"url":"u3","webSocketDebuggerUrl":"ws://x/devtools/page/0003"},"#
            + #"{"url":"bad","webSocketDebuggerUrl":"ws://x/devtools/page/"},"#
            + #"{"url":"bad","webSocketDebuggerUrl":"ws:/devtools/page/4"},"#
            + #"{"url":"bad","webSocketDebuggerUrl":7},"ignored",null]"#
        guard case .pages(let list) = WebInspectorPageList.listing(json: Array(body.utf8)) else { Issue.record("not pages"); return }
        #expect(list.pages == [.init(socketPath: "/devtools/page/2", title: "a", url: "u1"),
                               .init(socketPath: "/devtools/page/0003", title: "", url: "u3")])
        guard case .pages(let none) = WebInspectorPageList.listing(json: Array("[]".utf8)) else { Issue.record("not pages"); return }
        #expect(none.pages.isEmpty)
        #expect(WebInspectorPageList.listing(json: Array(#"[{"deviceId":"x","url":"localhost:9222"}]"#.utf8))
                == .devices([.init(name: "x", url: "localhost:9222")]))
        #expect(WebInspectorPageList.listing(json: Array(#"[{"id":"A","type":"page","webSocketDebuggerUrl":"ws://h/devtools/page/A"}]"#.utf8))
                == .devTools)
    }

    /// No body crashes the reader: random bytes and cut lists.
    @Test func noBodyCrashesTheListing() {
        var random = SplitMix64(seed: 9221)
        let real = Array(Self.iwdpJSON.utf8) + Array(Self.iwdpDevices.utf8)
        for round in 0..<3000 {
            var body = round % 2 == 0 ? random.bytes(Int(random.next() % 200)) : Array(real.prefix(Int(random.next() % UInt64(real.count))))
            if round % 3 == 0, !body.isEmpty { body[Int(random.next() % UInt64(body.count))] = UInt8(truncatingIfNeeded: random.next()) }
            _ = WebInspectorPageList.listing(json: body)
            _ = WebInspectorPageList(html: body)
        }
    }
}
