import Foundation

/// The command line of `bridgescope-webkit` (docs/WEBKIT.md):
///
///     bridgescope-webkit URL [--host inproc[:SCENARIO] | --host stdio:'CMD'] [--timeout S]
///                        [--record OUT.bsz] [--tap-dir DIR] [--inspector HOST:PORT] [--quiet] [--keep-open]
package struct ShellOptions: Sendable, Equatable {
    /// Which host answers behind the bridge.
    package enum Host: Sendable, Equatable {
        /// The reference host in this process, scripted by a scenario (a file, or a name in
        /// tools/scenarios), or by none.
        case inproc(scenario: String?)
        /// A child process speaking the `host --stdio` contract, run by `/bin/sh -c`.
        case stdio(command: String)
    }

    /// The page: a URL, or a path to an HTML file (loaded as `file://`).
    package var url = ""
    package var host = Host.inproc(scenario: nil)
    /// Seconds until the run ends with status 3 when the page has not sent
    /// `journey.complete` or `journey.error`.
    package var timeout = 60.0
    package var record: String?
    /// Both taps written as an SDK app writes them (``ShellTapFiles``), for `record --tap`.
    package var tapDir: String?
    /// `HOST:PORT` for WebKit's inspector server (`WEBKIT_INSPECTOR_HTTP_SERVER`).
    package var inspector: String?
    /// No exchange on stdout: only the outcome line.
    package var quiet = false
    /// Stay open after the page's journey ends, as an app does: only `--timeout` (exit 0),
    /// a signal (3), a crash of the page or the host (1) end the run. For `replay` and
    /// `fuzz --target webkit:` (docs/WEBVIEW-TARGETS.md).
    package var keepOpen = false

    package static let usage = """
        usage: bridgescope-webkit URL [--host inproc[:SCENARIO] | --host stdio:'CMD'] [--timeout S]
                                  [--record OUT.bsz] [--tap-dir DIR] [--inspector HOST:PORT] [--quiet] [--keep-open]

        Opens URL in WebKitGTK with the iOS bridge (window.webkit.messageHandlers.gbgBridge,
        answers through window.GBGBridge.receive) in front of a host, and waits for the page's
        journey.complete (exit 0) or journey.error (exit 1); 3 on timeout, 2 on a usage or
        set-up error. Starts Xvfb (or broadwayd) when no display is given. docs/WEBKIT.md.

          --host inproc[:SCENARIO]  the reference host in this process (default), scripted by a
                                    scenario file or a name in tools/scenarios (docs/SCENARIOS.md)
          --host stdio:'CMD'        any host speaking `bridgescope host --stdio`'s contract
          --timeout S               seconds to wait for the journey's end (default 60)
          --record OUT.bsz          one archive with both sides: <view>@web (the page's tap) and
                                    <view>@native (the host's side) (docs/FORMAT.md)
          --tap-dir DIR             the two taps as an app on the SDK writes them: DIR/web.ndjson (the
                                    page's tap) and DIR/native/ (BridgeTap at the host's delegate),
                                    for `bridgescope record --tap` (docs/TAP.md)
          --inspector HOST:PORT     start WebKit's inspector server there (docs/WEBKIT.md)
          --quiet                   print only the outcome, not the exchange
          --keep-open               stay open after the journey ends, until --timeout (exit 0) or a
                                    signal: a host for replay/fuzz --target webkit: (docs/WEBVIEW-TARGETS.md)
        """

    /// Parses `arguments` (without the program name).
    package static func parse(_ arguments: [String]) throws(ShellError) -> ShellOptions {
        var o = ShellOptions()
        var i = 0
        func value(_ name: String) throws(ShellError) -> String {
            i += 1
            guard i < arguments.count else { throw ShellError("\(name) needs a value\n\n\(usage)") }
            return arguments[i]
        }
        var urls: [String] = []
        while i < arguments.count {
            let a = arguments[i]
            switch a {
            case "--host": o.host = try parseHost(try value(a))
            case "--timeout":
                let v = try value(a)
                guard let t = Double(v), t > 0, t <= 86_400 else {
                    throw ShellError("--timeout must be a number of seconds between 0 and 86400, not \(v)")
                }
                o.timeout = t
            case "--record": o.record = try value(a)
            case "--tap-dir": o.tapDir = try value(a)
            case "--inspector":
                let v = try value(a)
                guard let colon = v.lastIndex(of: ":"), let port = Int(v[v.index(after: colon)...]),
                      (1...65535).contains(port), colon > v.startIndex else {
                    throw ShellError("--inspector must be HOST:PORT (e.g. 127.0.0.1:9333), not \(v)")
                }
                o.inspector = v
            case "--quiet": o.quiet = true
            case "--keep-open": o.keepOpen = true
            case "-h", "--help": throw ShellError(usage, status: 0)
            default:
                if a.hasPrefix("-") { throw ShellError("unknown option \(a)\n\n\(usage)") }
                urls.append(a)
            }
            i += 1
        }
        guard urls.count == 1 else {
            throw ShellError((urls.isEmpty ? "which page? give a URL" : "one URL, not \(urls.count)") + "\n\n\(usage)")
        }
        o.url = try pageURL(urls[0])
        return o
    }

    static func parseHost(_ spec: String) throws(ShellError) -> Host {
        if spec == "inproc" { return .inproc(scenario: nil) }
        if spec.hasPrefix("inproc:") {
            let name = String(spec.dropFirst("inproc:".count))
            guard !name.isEmpty else { throw ShellError("--host inproc: needs a scenario after the colon") }
            return .inproc(scenario: name)
        }
        if spec.hasPrefix("stdio:") {
            let command = String(spec.dropFirst("stdio:".count))
            guard !command.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ShellError("--host stdio: needs a command, e.g. --host stdio:'bridgescope host --stdio'")
            }
            return .stdio(command: command)
        }
        throw ShellError("--host must be inproc, inproc:SCENARIO or stdio:'CMD', not \(spec)")
    }

    /// A URL as given, or an existing file's `file://` URL.
    static func pageURL(_ text: String) throws(ShellError) -> String {
        if let scheme = text.range(of: "://")?.lowerBound, !text[..<scheme].isEmpty { return text }
        if text.hasPrefix("about:") || text.hasPrefix("data:") { return text }
        let path = URL(fileURLWithPath: text).standardizedFileURL
        guard FileManager.default.fileExists(atPath: path.path) else {
            throw ShellError("\(text) is neither a URL nor an existing file")
        }
        return path.absoluteString
    }
}
