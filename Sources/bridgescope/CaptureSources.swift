import ArgumentParser
import BridgeArchive
import BridgeCapture
import BridgeDevTools
import BridgePcap
import BridgeProxy
import BridgeTransport
import BridgeServer
import Logging

/// The libpcap sources of `bridgescope record` (`--read`, `--interface`) and their
/// options, as an option group the record command includes with `@OptionGroup`.
struct CaptureSourceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Read packets from a pcap or pcapng file.", valueName: "file"))
    var read: String?

    @Option(help: ArgumentHelp("Capture live on an interface (lo, eth0, any); needs root or CAP_NET_RAW.", valueName: "if"))
    var interface: String?

    @Option(help: ArgumentHelp("With --interface: capture TCP port N (BPF \"tcp port N\").", valueName: "n"))
    var port: Int?

    @Option(help: ArgumentHelp("With --interface: a BPF filter, instead of --port.", valueName: "bpf"))
    var filter: String?

    @Option(help: ArgumentHelp("With --interface: the kernel capture buffer in bytes.", valueName: "bytes"))
    var bufferSize: Int = 32 << 20

    @Option(help: ArgumentHelp("With --interface: bytes kept per packet.", valueName: "bytes"))
    var snaplen: Int = 262_144

    @Flag(help: "With --interface: libpcap immediate mode (each packet at once; on Linux a much smaller ring, which drops under load).")
    var immediate = false

    /// Whether a libpcap source was chosen.
    var isChosen: Bool { read != nil || interface != nil }

    func validate() throws {
        if read != nil && interface != nil { throw ValidationError("--read and --interface cannot be combined") }
        if interface == nil && (port != nil || filter != nil || immediate) {
            throw ValidationError("--port, --filter and --immediate need --interface")
        }
        if port != nil && filter != nil { throw ValidationError("--port and --filter cannot be combined (put the port in the filter)") }
        if let port, !(1...65535).contains(port) { throw ValidationError("--port must be 1 to 65535") }
        if bufferSize < 65536 || bufferSize > Int(Int32.max) { throw ValidationError("--buffer-size must be 65536 to 2147483647 bytes") }
        if snaplen < 128 || snaplen > 262_144 { throw ValidationError("--snaplen must be 128 to 262144 bytes") }
    }

    /// The source these options describe (nil when none was chosen).
    var source: CaptureSource? {
        if let read { return .file(read) }
        guard let interface else { return nil }
        return .live(LiveCaptureOptions(interface: interface, filter: filter ?? port.map(LiveCaptureOptions.portFilter),
                                        snapshotLength: Int32(snaplen), bufferSize: Int32(bufferSize), immediate: immediate))
    }
}

/// The recording proxy (`--proxy`, `--upstream`) and its options.
struct ProxySourceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Run a recording WebSocket proxy on HOST:PORT (no capture privileges needed); pages connect to ws://HOST:PORT/bridge.", valueName: "host:port"))
    var proxy: String?

    @Option(help: ArgumentHelp("With --proxy: the real host's WebSocket URL.", valueName: "ws://host:port/bridge"))
    var upstream: String?

    @Option(help: ArgumentHelp("With --proxy: an allowed page Origin (repeatable). Default: loopback origins only.", valueName: "origin"))
    var origin: [String] = []

    @Option(help: ArgumentHelp("With --proxy: folder served under /journeys/ (default: tools/journey when found).", valueName: "dir"))
    var journeys: String?

    @Flag(help: "With --proxy: do not negotiate permessage-deflate with the page or upstream.")
    var noDeflate = false

    @Option(help: ArgumentHelp("With --proxy: memory the proxy may hold in unfinished frames, large messages and send queues, across connections, in MiB (default 256; docs/SECURITY.md).", valueName: "mib"))
    var memoryBudget: Int?

    @Option(help: ArgumentHelp("With --proxy: page connections served at once, at most (and by default) what the descriptor limit allows at two descriptors a page (docs/SECURITY.md).", valueName: "n"))
    var maxConnections: Int?

    /// Whether the proxy was chosen.
    var isChosen: Bool { proxy != nil }

    func validate() throws {
        if proxy == nil {
            if upstream != nil || !origin.isEmpty || journeys != nil || noDeflate || memoryBudget != nil || maxConnections != nil {
                throw ValidationError("--upstream, --origin, --journeys, --no-deflate, --memory-budget and --max-connections need --proxy")
            }
            return
        }
        guard listenAddress != nil else { throw ValidationError("--proxy takes HOST:PORT, e.g. 127.0.0.1:8788") }
        if let mib = memoryBudget, !(1...(1 << 20)).contains(mib) {
            throw ValidationError("--memory-budget takes MiB, from 1 to 1048576 (default 256)")
        }
        if let n = maxConnections {
            let cap = ProxyOptions.derivedMaxConnections
            guard n >= 1 && n <= cap else {
                throw ValidationError("--max-connections takes 1 to \(cap) here: the open-files limit (ulimit -n) of "
                                      + "\(AdmissionLimits.descriptorLimit()) allows \(cap) page connections at two descriptors each "
                                      + "after a reserve (docs/SECURITY.md); raise the limit for more")
            }
        }
        guard let upstream else { throw ValidationError("--proxy needs --upstream ws://HOST:PORT/bridge (the real host)") }
        guard WebSocketURL(upstream) != nil else {
            throw ValidationError("--upstream takes ws://HOST:PORT/PATH, e.g. ws://127.0.0.1:8787/bridge (wss:// is not supported)")
        }
    }

    /// `--proxy` split into host and port.
    var listenAddress: (host: String, port: Int)? {
        guard let text = proxy, let colon = text.lastIndex(of: ":"),
              let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    /// The proxy's options, with the record command's stop conditions.
    func options(maxMessages: Int?, duration: Double?) -> ProxyOptions? {
        guard let (host, port) = listenAddress, let url = upstream.flatMap(WebSocketURL.init) else { return nil }
        var options = ProxyOptions(listenHost: host, listenPort: port, upstream: url, allowedOrigins: origin, deflate: !noDeflate,
                                   journeysDirectory: journeys ?? HostServerRunner.defaultJourneysDirectory(),
                                   maxMessages: maxMessages, duration: duration,
                                   limits: ProxyLimits(memoryBudget: (memoryBudget ?? 256) << 20))
        options.maxConnections = maxConnections
        return options
    }
}

/// The DevTools source (`--cdp`, `--launch`, `--target`).
struct CDPSourceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Record a browser or WebView over the Chrome DevTools Protocol: its DevTools HTTP endpoint (docs/CDP.md).", valueName: "http://host:port"))
    var cdp: String?

    @Option(help: ArgumentHelp("Start headless Chromium, open URL with the tap installed, record it, stop the browser at the end.", valueName: "url"))
    var launch: String?

    @Option(help: ArgumentHelp("Record a WKWebView or WebKitGTK app over WebKit's inspector protocol: its inspector HTTP server (WEBKIT_INSPECTOR_HTTP_SERVER, bridgescope-webkit --inspector; docs/CDP.md, \"WebKit\").", valueName: "http://host:port"))
    var webkit: String?

    @Option(help: ArgumentHelp("With --cdp or --webkit: record only pages whose URL contains this (their iframes always).", valueName: "url-substring"))
    var target: String?

    @Flag(help: "With --cdp: attach to each page's own DevTools endpoint (/json/list), as an Android WebView offers, even when the browser's is there.")
    var pageTargets = false

    /// Whether a DevTools source was chosen.
    var isChosen: Bool { cdp != nil || launch != nil }
    /// Whether the WebKit source was chosen.
    var isWebKit: Bool { webkit != nil }

    func validate() throws {
        if cdp != nil && launch != nil { throw ValidationError("--cdp and --launch cannot be combined (--launch starts its own browser)") }
        if webkit != nil && (cdp != nil || launch != nil || pageTargets) {
            throw ValidationError("--webkit cannot be combined with --cdp, --launch or --page-targets")
        }
        if let webkit, WebInspectorEndpoint(webkit) == nil {
            throw ValidationError("--webkit takes WebKit's inspector HTTP server http://HOST:PORT, e.g. http://127.0.0.1:9333")
        }
        if target != nil && cdp == nil && webkit == nil {
            throw ValidationError("--target needs --cdp or --webkit (--launch records the page it opens)")
        }
        if let cdp, CDPEndpoint(cdp) == nil {
            throw ValidationError("--cdp takes the DevTools HTTP endpoint http://HOST:PORT, e.g. http://127.0.0.1:9222")
        }
        if let target, target.isEmpty { throw ValidationError("--target must not be empty") }
        if pageTargets && cdp == nil { throw ValidationError("--page-targets needs --cdp") }
    }

    /// The source's options, with the record command's stop conditions.
    func options(maxMessages: Int?, duration: Double?) throws -> CDPRecordingSource.Options {
        var options = CDPRecordingSource.Options(endpoint: cdp.flatMap(CDPEndpoint.init), launch: launch, targetFilter: target,
                                                 duration: duration, maxMessages: maxMessages, tapSource: try CDPTapScript.load())
        options.pageTargetsOnly = pageTargets
        return options
    }
}

extension CDPSourceOptions {
    /// The WebKit source's options, with the record command's stop conditions.
    func webKitOptions(maxMessages: Int?, duration: Double?) throws -> WebInspectorRecordingSource.Options? {
        guard let endpoint = webkit.flatMap(WebInspectorEndpoint.init) else { return nil }
        return WebInspectorRecordingSource.Options(endpoint: endpoint, targetFilter: target, duration: duration,
                                                   maxMessages: maxMessages, tapSource: try CDPTapScript.load())
    }
}
