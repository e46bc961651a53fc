import BridgeCapture
import BridgeJSON
import BridgeTransport
import Logging

extension WebViewLink {
    /// Attaches to the page `spec` names and makes it ready to post: the debugging
    /// domains enabled, the page moved to about:blank when the bridge lives on there (a
    /// native bridge does; a page-side one such as bridgescope's shim does not, and the
    /// page is then used as it is), the tap installed. Throws ``CaptureError`` naming the
    /// endpoint and what to do.
    package static func open(_ spec: WebViewSpec, tapSource: String, blank: Bool = true, commandTimeout: Double = 10,
                             logger: Logger = Logger(label: "bridgescope.webview")) async throws(CaptureError) -> WebViewLink {
        let (socket, url) = try spec.page()
        let link = WebViewLink(spec: spec, tapSource: tapSource, logger: logger, commandTimeout: commandTimeout)
        link.state.withLock { $0.pageURL = url }
        link.connect(socket)
        do throws(CaptureError) {
            // As patient as a command may be (a loaded machine starves the socket's task).
            let patience = max(10, commandTimeout)
            try await link.waitReady(seconds: patience)
            try await link.enable()
            var page = try await link.settle(seconds: patience, what: "the page's load") { $0.ready }
            let navigated = blank && page.href != "about:blank"
            if navigated {
                _ = try await link.command("Page.navigate", ["url": "about:blank"])
                let empty = try await link.settle(seconds: patience, what: "the navigation to about:blank") { $0.ready && $0.href == "about:blank" }
                if empty.shape != nil {
                    page = empty
                } else {
                    logger.notice("the bridge of \(url) does not live on at about:blank (a bridge the page itself sets up); using the page as it is")
                    _ = try await link.command("Page.navigate", ["url": .string(url)])
                    page = try await link.settle(seconds: patience, what: "the navigation back to \(url)") { $0.ready && $0.href != "about:blank" }
                }
            }
            guard let shape = page.shape else {
                throw CaptureError(spec.kind == .cdp ? .cdp : .webkit, "\(page.href) at \(spec.endpoint) has no bridge: neither "
                    + "window.webkit.messageHandlers.gbgBridge (iOS) nor window.GBGBridge.postMessage (Android); "
                    + "point the WebView at a page of the app that has it")
            }
            link.state.withLock { $0.shape = shape; $0.pageURL = page.href; $0.fresh = navigated }
            try await link.install()
            return link
        } catch {
            link.close()
            throw error
        }
    }

    /// Turns on what the link listens to (the tap's binding, DevTools; the console,
    /// WebKit) and puts the tap before the page's scripts in every later document, so a
    /// reload's first messages (the host's `host.ready`) are heard too.
    func enable() async throws(CaptureError) {
        switch spec.kind {
        case .cdp:
            _ = try await command("Runtime.enable")
            _ = try await command("Runtime.addBinding", ["name": .string(binding)])
            _ = try await command("Page.enable")
            _ = try await command("Page.addScriptToEvaluateOnNewDocument", ["source": .string(tapScript)])
        case .webkit:
            // A navigation to another process arms its target with the tap too (WebViewChannel).
            state.withLock { $0.channel.bootstrap = tapScript }
            _ = try await command("Console.enable")
            _ = try await command("Page.enable")
            _ = try await command("Page.setBootstrapScript", ["source": .string(tapScript)])
        }
    }

    /// Installs the stand-in receiver and the tap in the current document.
    func install() async throws(CaptureError) {
        _ = try await evaluate(WebViewScript.receiver)
        let answer = try await evaluate(tapScript)
        if answer == WebInspectorTapScript.present {
            throw CaptureError(.webkit, "the page already has a tap of its own (bridgescope-webkit --record, or the app's): "
                + "the target cannot hear the host through it; run the WebView without recording")
        }
        guard try await evaluate("String(" + WebViewScript.tapPresent + ")") == "true" else {
            throw CaptureError(spec.kind == .cdp ? .cdp : .webkit, "the tap did not install in \(pageURL) (\(answer ?? "no answer"))")
        }
    }

    /// A fresh document of the same page (a reload): what the page held is gone; a
    /// native host's state is not (it lives in the app).
    package func reload() async throws(CaptureError) {
        try await replaceDocument(nil)
    }

    /// The WebView goes to `url` (another site's page runs in another web process: the
    /// link follows it, docs/WEBVIEW-TARGETS.md); ready to post once its bridge is there.
    package func navigate(to url: String) async throws(CaptureError) {
        try await replaceDocument(url)
    }

    /// Reloads (`url` nil) or navigates, and waits for the new document with a bridge.
    private func replaceDocument(_ url: String?) async throws(CaptureError) {
        var random = SystemRandomNumberGenerator()
        let token = String(random.next(), radix: 36)
        _ = try await evaluate(WebViewScript.mark(token))
        // What the replaced document said has arrived by the mark's answer (one socket, in
        // order): from here on, documents heard so far are not (WebKit may answer the
        // reload after the new document has spoken, so not later).
        retireDocuments()
        if let url {
            _ = try await command("Page.navigate", ["url": .string(url)])
        } else {
            _ = try await command("Page.reload")
        }
        let what = url.map { "the navigation to \($0)" } ?? "the reload of \(pageURL)"
        let page = try await settle(seconds: max(10, commandTimeout), what: what) { $0.ready && $0.mark != token }
        guard page.shape != nil else {
            throw CaptureError(spec.kind == .cdp ? .cdp : .webkit, "after \(what), \(page.href) has no bridge")
        }
        try await install()
        state.withLock { $0.fresh = true; $0.pageURL = page.href }
    }

    /// Posts one message through the page's bridge, as a journey would, now (posts leave
    /// in the order of the calls); the task gives what crossed (iOS: `JSON.stringify` of
    /// the object the page posted; Android: the string), or why nothing was posted (not
    /// UTF-8; for iOS, not JSON).
    package func post(_ bytes: [UInt8]) -> Task<PagePost, any Error> {
        let kind = errorKind
        guard let shape = state.withLock({ $0.shape }) else {
            return Task { throw CaptureError(kind, "the link is not open") }
        }
        let expression: String
        var pieces: [Task<JSONObject, any Error>] = []
        switch WebViewScript.posting(bytes, shape: shape) {
        case .notSent(let why): return Task { .notSent(why) }
        case .evaluate(let e): expression = e
        case .evaluateInPieces(let parts, let e):
            // Pipelined like posts: the pieces, then the post that takes them (one socket, in order).
            pieces = parts.map { enqueue("Runtime.evaluate", ["expression": .string($0), "returnByValue": true]) }
            expression = e
        }
        state.withLock { $0.fresh = false }
        let answer = enqueue("Runtime.evaluate", ["expression": .string(expression), "returnByValue": true])
        return Task { [self] in
            for piece in pieces { _ = try value(of: try await piece.value) }
            let text = try value(of: try await answer.value) ?? ""
            guard let outcome = WebViewScript.outcome(text, posted: bytes, shape: shape) else {
                throw CaptureError(kind, "posting through the bridge gave \(text.isEmpty ? "no answer" : text)")
            }
            return outcome
        }
    }
}
