@testable import BridgeCapture
import BridgeWebSocket
import Testing

/// HTTP heads and upgrade tracking.
struct HTTPHeadTests {
    func parse(_ text: String) -> HTTPHead.Parse {
        Array(text.utf8).withUnsafeBytes { HTTPHead.parse($0) }
    }

    @Test func requestAndResponseHeads() {
        guard case .head(let req, let n) = parse("GET /bridge HTTP/1.1\r\nHost: x\r\nUpgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\n\r\nrest") else {
            Issue.record("request not parsed")
            return
        }
        #expect(n == 86)
        #expect(req.method == "GET" && req.asksForWebSocket && !req.isResponse)
        guard case .head(let res, _) = parse("HTTP/1.1 101 Switching Protocols\nUpgrade: websocket\nSec-WebSocket-Extensions: permessage-deflate\nsec-websocket-extensions: x\n\n") else {
            Issue.record("response with bare LF not parsed")
            return
        }
        #expect(res.status == 101 && res.asksForWebSocket)
        #expect(res.field("SEC-WEBSOCKET-EXTENSIONS") == "permessage-deflate, x")
    }

    @Test func notHTTPIsSaidEarly() {
        for text in ["\u{16}\u{03}\u{01}\u{02}", "SSH-2.0-OpenSSH", "get / HTTP/1.1\r\n", "GET / HTTP/2\r\n\r\n", "GET / HTTP/1.1\r\n folded\r\n\r\n", "GET / HTTP/1.1\r\nno colon\r\n\r\n"] {
            if case .notHTTP = parse(text) {} else { Issue.record("accepted: \(text.debugDescription)") }
        }
        if case .needMore = parse("GE") {} else { Issue.record("two bytes decided") }
        let long = "GET / HTTP/1.1\r\n" + String(repeating: "X-A: b\r\n", count: 200) + "\r\n"
        if case .notHTTP(let why) = parse(long) { #expect(why.contains("128")) } else { Issue.record("200 fields accepted") }
    }

    @Test func upgradeAfterAHeadDeliveredOneByteAtATime() {
        var t = HTTPUpgradeTracker()
        let request = "GET /bridge HTTP/1.1\r\nHost: x\r\n" + String(repeating: "X-Pad: 0123456789\r\n", count: 100)
            + "Upgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
        for byte in request.utf8 { #expect(t.receive(0, [byte]) == .pending) }
        let response = "HTTP/1.1 101 OK\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; server_max_window_bits=8\r\n\r\n"
        let outcome = t.receive(1, Array(response.utf8) + [0x81, 0x00])
        guard case .upgraded(let u) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(u.clientDirection == 0 && u.target == "/bridge")
        #expect(u.deflate?.serverNoContextTakeover == true)  // lenient: an 8-bit window is still deflate
        #expect(u.leftovers == [[], [0x81, 0x00]])
    }

    @Test func refusedUpgradesAndOtherBodiesEndTracking() {
        var t = HTTPUpgradeTracker()
        _ = t.receive(0, Array("GET /bridge HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n".utf8))
        #expect(t.receive(1, Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 3\r\n\r\nno!".utf8)) == .pending)
        var chunked = HTTPUpgradeTracker()
        _ = chunked.receive(0, Array("GET / HTTP/1.1\r\n\r\n".utf8))
        if case .notWebSocket = chunked.receive(1, Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)) {} else {
            Issue.record("chunked body followed")
        }
    }
}
