import BridgeCapture
import BridgeDevTools
import Foundation
import Testing

/// `--target cdp:http://HOST:PORT[#URL-SUBSTRING]` and `webkit:…` as `replay` and `fuzz`
/// read them (``WebViewSpec``): what is a WebView target, what is a bad one (a usage
/// error naming the form), and what is some other kind of target (nil).
struct WebViewSpecTests {
    func spec(_ text: String) throws(CaptureError) -> WebViewSpec? {
        try WebViewSpec(parsing: text)
    }

    @Test func bothKindsWithAndWithoutAPage() throws {
        let cdp = try #require(try spec("cdp:http://127.0.0.1:9222"))
        #expect(cdp.kind == .cdp && cdp.endpoint == CDPEndpoint(host: "127.0.0.1", port: 9222) && cdp.pageFilter == nil)
        let webkit = try #require(try spec("webkit:http://localhost:9333#journey.html"))
        #expect(webkit.kind == .webkit && webkit.endpoint == CDPEndpoint(host: "localhost", port: 9333))
        #expect(webkit.pageFilter == "journey.html")
        let v6 = try #require(try spec("webkit:http://[::1]:9222/#x"))
        #expect(v6.endpoint.host == "::1" && v6.endpoint.port == 9222 && v6.pageFilter == "x")
        // As written, in the canonical form.
        #expect(cdp.description == "cdp:http://127.0.0.1:9222")
        #expect(webkit.description == "webkit:http://localhost:9333#journey.html")
        #expect(v6.description == "webkit:http://[::1]:9222#x")
        #expect(try spec(v6.description) == v6)
    }

    /// The page filter is a plain substring of the URL as listed, taken as written: the
    /// first `#` splits, later ones belong to it; spaces and percent-escapes are kept,
    /// never decoded (a list shows `%20`, so `%20` matches it and a space does not).
    @Test(arguments: [
        ("cdp:http://h:1#a b", "a b"),
        ("cdp:http://h:1#a%20b", "a%20b"),
        ("cdp:http://h:1#%", "%"),
        ("webkit:http://h:1##frag", "#frag"),
        ("webkit:http://h:1#/j.html?x=1&y=é", "/j.html?x=1&y=é"),
        ("webkit:http://h:1# ", " "),
    ])
    func thePageFilterIsTakenAsWritten(_ text: String, _ filter: String) throws {
        #expect(try spec(text)?.pageFilter == filter)
    }

    /// Not a WebView target at all: another kind of target, nil (no error here).
    @Test(arguments: ["stdio:./host", "ws://127.0.0.1:9222", "http://127.0.0.1:9222", "CDP:http://h:1", "Webkit:http://h:1",
                      "cdp", "webkit", "cdphttp://h:1", " cdp:http://h:1", "", "inproc"])
    func otherTargetsAreNotWebViews(_ text: String) throws {
        #expect(try spec(text) == nil)
    }

    /// A `cdp:` or `webkit:` prefix with a bad rest: a usage error that shows the form.
    @Test(arguments: [
        ("cdp:http://127.0.0.1:9222#", "nothing after #"),
        ("webkit:http://h:1#", "nothing after #"),
        ("cdp:", "expected cdp:http://HOST:PORT[#URL-SUBSTRING], e.g. cdp:http://127.0.0.1:9222"),
        ("webkit:", "expected webkit:http://HOST:PORT[#URL-SUBSTRING], e.g. webkit:http://127.0.0.1:9333"),
        ("cdp:https://127.0.0.1:9222", "expected cdp:http://HOST:PORT"),
        ("webkit:ws://127.0.0.1:9222/devtools/page/1", "expected webkit:http://HOST:PORT"),
        ("cdp:http://127.0.0.1", "expected cdp:"),            // no port
        ("cdp:http://127.0.0.1:", "expected cdp:"),
        ("cdp:http://:9222", "expected cdp:"),                // no host
        ("cdp:http://h:0", "expected cdp:"),
        ("cdp:http://h:65536", "expected cdp:"),
        ("cdp:http://h:+9222", "expected cdp:"),              // a sign is not a port
        ("cdp:http://h:009222", "expected cdp:"),             // nor six digits
        ("cdp:http://h:92 22", "expected cdp:"),
        ("webkit:http://h:9222/json", "expected webkit:"),    // a path is not an endpoint
        ("webkit:http://a/b:9222", "expected webkit:"),
        ("cdp:http://user@h:9222", "expected cdp:"),          // no user part
        ("cdp:http://[[]]:9222", "expected cdp:"),
        ("cdp:http://a b:9222", "expected cdp:"),
        ("webkit:127.0.0.1:9222", "expected webkit:"),
        ("webkit:http://h:９２２２", "expected webkit:"),       // full-width digits
    ])
    func badAddressesAreUsageErrors(_ text: String, _ expected: String) {
        do {
            let parsed = try spec(text)
            Issue.record("\(text) parsed as \(String(describing: parsed))")
        } catch {
            #expect(error.kind == .usage, "\(error)")
            #expect(error.message.contains(expected), "\(error.message)")
            #expect(error.message.hasPrefix(text), "the message names what was written: \(error.message)")
        }
    }

    /// Whatever is written, parsing ends in a spec, nil or a usage error.
    @Test func noTextCrashesTheParser() throws {
        var random = SplitMix64(seed: 41)
        let alphabet = Array("cdp:webkit:http://[]#%@/?: 0123456789é\u{0}\u{2028}".unicodeScalars)
        for _ in 0..<5000 {
            let count = Int(random.next() % 40)
            var text = random.next() % 2 == 0 ? "cdp:http://" : "webkit:"
            for _ in 0..<count { text.unicodeScalars.append(alphabet[Int(random.next() % UInt64(alphabet.count))]) }
            if let parsed = try? spec(text) {
                #expect(try spec(parsed.description) == parsed, "\(text)")
            }
        }
    }

    /// A page not found names the endpoint and, for a filter no listed URL can hold as
    /// written, how the list spells it.
    @Test func aFilterWithASpaceIsHintedAtWhenNoPageMatches() throws {
        let server = try TinyHTTPServer(answer: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]")
        defer { server.close() }
        for kind in ["cdp", "webkit"] {
            let spaced = try #require(try spec("\(kind):http://127.0.0.1:\(server.port)#my page"))
            #expect(throws: CaptureError.self) { _ = try spaced.page(waiting: 0) }
            do { _ = try spaced.page(waiting: 0) } catch {
                #expect(error.message.contains("whose URL contains \"my page\" (URLs are listed percent-encoded: write a space as %20"),
                        "\(error.message)")
                #expect(error.message.contains("http://127.0.0.1:\(server.port)"), "\(error.message)")
            }
            let plain = try #require(try spec("\(kind):http://127.0.0.1:\(server.port)#journey"))
            do { _ = try plain.page(waiting: 0) } catch {
                #expect(!error.message.contains("percent-encoded"), "\(error.message)")
            }
        }
    }
}
