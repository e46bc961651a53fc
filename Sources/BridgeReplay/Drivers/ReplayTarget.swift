import BridgeTransport
import BridgeHost
import Foundation

/// Where a replay sends the recorded web side (`--target`).
public enum ReplayTarget: Sendable, Hashable, CustomStringConvertible {
    /// The reference host in this process, one per connection, scripted by a scenario
    /// (nil: the default scenario). `inproc` or `inproc:SCENARIO`.
    case inproc(scenario: String?)
    /// Any live host over WebSocket: `ws://HOST:PORT/bridge`. One socket per connection.
    case webSocket(WebSocketURL)
    /// A host speaking one envelope per line on standard input and output, started with
    /// `/bin/sh -c COMMAND` once per connection: `stdio:'bridgescope host --stdio'`.
    case stdio(command: String)
    /// A host behind a WebView's bridge, reached through its debugging door:
    /// `cdp:http://HOST:PORT[#URL]` or `webkit:http://HOST:PORT[#URL]`, as written
    /// (docs/WEBVIEW-TARGETS.md). Connections one after another, each in a fresh document.
    case webView(String)

    /// Parses a `--target` value.
    ///
    /// - Throws: ``ReplayError`` (`usage`) naming the accepted forms.
    public init(parsing text: String) throws(ReplayError) {
        if text == "inproc" {
            self = .inproc(scenario: nil)
        } else if text.hasPrefix("inproc:") {
            let s = String(text.dropFirst("inproc:".count))
            guard !s.isEmpty else { throw ReplayError(.usage, "--target inproc: needs a scenario name or file after the colon") }
            self = .inproc(scenario: s)
        } else if text.hasPrefix("ws://") {
            guard let url = WebSocketURL(text) else {
                throw ReplayError(.usage, "--target \(text): not a valid ws://HOST:PORT/PATH URL")
            }
            self = .webSocket(url)
        } else if text.hasPrefix("stdio:") {
            let c = String(text.dropFirst("stdio:".count)).trimmingCharacters(in: .whitespaces)
            guard !c.isEmpty else { throw ReplayError(.usage, "--target stdio: needs a command, e.g. stdio:'bridgescope host --stdio'") }
            self = .stdio(command: c)
        } else if text.hasPrefix("cdp:") || text.hasPrefix("webkit:") {
            guard text.drop(while: { $0 != ":" }).dropFirst().hasPrefix("http://") else {
                throw ReplayError(.usage, "--target \(text): expected cdp:http://HOST:PORT[#URL-SUBSTRING] or webkit:http://HOST:PORT[#URL-SUBSTRING]")
            }
            self = .webView(text)
        } else if text.hasPrefix("wss://") {
            throw ReplayError(.usage, "--target \(text): TLS (wss://) is not supported; hosts under test listen on ws://")
        } else {
            throw ReplayError(.usage, "--target \(text): expected inproc[:SCENARIO], ws://HOST:PORT/bridge, stdio:'COMMAND', cdp:http://HOST:PORT or webkit:http://HOST:PORT")
        }
    }

    /// Whether this is the in-process reference host (judged by its own §7 choices).
    var isInproc: Bool {
        if case .inproc = self { return true }
        return false
    }

    /// The target as written.
    public var description: String {
        switch self {
        case .inproc(let s): return s.map { "inproc:\($0)" } ?? "inproc"
        case .webSocket(let url): return url.description
        case .stdio(let c): return "stdio:\(c)"
        case .webView(let s): return s
        }
    }

    /// The scenario of an `inproc` target: `SCENARIO` is a file path (it contains `/` or
    /// ends in `.json`) or a name looked up as `NAME.json` in `searchDirectories`
    /// (`tools/scenarios` of the checkout by default). Other targets: the default scenario.
    ///
    /// - Throws: ``ReplayError`` (`usage`) when it cannot be found or parsed.
    public func scenario(searchDirectories: [String]) throws(ReplayError) -> Scenario {
        guard case .inproc(let spec?) = self else { return .default }
        let path: String
        do {
            path = try Scenario.locate(spec, in: searchDirectories, searched: ResourceLocator.searched("tools/scenarios"))
        } catch {
            throw ReplayError(.usage, error.message)
        }
        do {
            return try Scenario.load(path: path)
        } catch {
            throw ReplayError(.usage, "scenario \(path): \(error)")
        }
    }

    /// Every existing `tools/scenarios` on the resource search path (``ResourceLocator``):
    /// `$BRIDGESCOPE_HOME`, the current directory, the executable's checkout or install prefix.
    public static func defaultScenarioDirectories() -> [String] {
        ResourceLocator.candidates("tools/scenarios").filter { FileManager.default.fileExists(atPath: $0) }
    }
}
