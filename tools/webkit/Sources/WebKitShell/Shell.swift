import BridgeHost
import CWebKitGTK
import Foundation
import Logging

/// One run of `bridgescope-webkit`: a web view with the iOS bridge in front of a host,
/// until the page's journey ends, the timeout passes or a signal arrives.
///
/// The GTK main loop is the shell's main actor: WebKit, the recorder and the exchange are
/// touched only there. Host answers arrive from other threads and are queued onto it
/// (``MainThread``), then answered with `window.GBGBridge.receive(<json>)` through
/// `webkit_web_view_evaluate_javascript`, in the order the host sent them.
package final class Shell: @unchecked Sendable {
    /// The web view's name in the exchange and the archive.
    package static let view = "webview-1"
    /// How long the run goes on after the journey's end event, so that the host's last
    /// answers and the tap's last lines arrive.
    package static let graceMilliseconds: UInt32 = 300

    let options: ShellOptions
    let logger: Logger
    let main = MainThread()
    let loop: OpaquePointer
    var webView: WebView?
    var host: (any ShellHost)?
    var recorder: ShellRecorder?
    /// `--tap-dir`: the taps as an SDK app writes them.
    var tapFiles: ShellTapFiles?
    var exchange = ExchangeLog(connection: Shell.view)
    var outcome: JourneyOutcome?
    /// Host messages held until the first page has loaded or posted (``pageReady``).
    var held: [[UInt8]] = []
    /// Whether the page can take answers: its first load finished, or it posted.
    var pageReady = false
    /// When the shell started (``ShellCommand``), for the time to the first message.
    var started = DispatchTime.now()
    var firstMessageLogged = false
    /// The exit status once decided, and why (printed).
    var status: Int32?
    var reason = ""

    package init(options: ShellOptions, logger: Logger) {
        self.options = options
        self.logger = logger
        loop = g_main_loop_new(nil, 0)
    }

    /// Runs the page to its end and returns the exit status (0, 1, 3). Set-up failures throw.
    package func run(host: any ShellHost, tapSource: String?, toolVersion: String) throws(ShellError) -> Int32 {
        if let path = options.record {
            recorder = try ShellRecorder(path: path, url: options.url, view: Self.view, toolVersion: toolVersion)
        }
        if let dir = options.tapDir {
            tapFiles = try ShellTapFiles(directory: dir, view: Self.view)
        }
        let tapped = recorder != nil || tapFiles != nil
        var handlers = ["gbgBridge"]
        if tapped { handlers.append(BootstrapScript.tapHandler) }
        let script = BootstrapScript.script(tapSource: tapped ? tapSource : nil,
                                            connection: tapped ? Self.view + "@web" : Self.view)
        let view = WebView(bootstrapScript: script, handlers: handlers) { [unowned self] in self.handle($0) }
        webView = view
        self.host = host
        var observe: (@Sendable (NativeObservation) -> Void)?
        if tapped {
            observe = { [main, unowned self] o in main.post { self.recorder?.native(o); self.tapFiles?.native(o) } }
        }
        try host.start(send: { [main, unowned self] bytes in main.post { self.answer(bytes) } }, observe: observe,
                       ended: { [main, unowned self] why in main.post { self.end(1, why) } })
        MainThread.every(milliseconds: UInt32(min(options.timeout * 1000, Double(UInt32.max)))) { [unowned self] in
            if options.keepOpen {
                self.end(0, "kept open for \(Self.seconds(options.timeout)) s (--keep-open)")
                return false
            }
            self.end(3, "timed out after \(Self.seconds(options.timeout)) s: the page sent no journey.complete or journey.error")
            return false
        }
        watchSignals()
        view.load(options.url)
        g_main_loop_run(loop)
        return status ?? 3
    }

    /// A message from a script message handler, on the main loop.
    func handle(_ report: WebView.Report) {
        switch report {
        case .message(let handler, let body, _):
            if handler == BootstrapScript.tapHandler {
                recorder?.webLine(body)
                tapFiles?.webLine(body)
                return
            }
            guard status == nil else { return }
            if !firstMessageLogged {
                firstMessageLogged = true
                let ms = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e6
                logger.info("first message from the page \(Int(ms)) ms after start")
            }
            markReady()
            exchange.note(direction: "w2h", bytes: body)
            host?.receive(body)
            if !options.keepOpen, outcome == nil, JourneyOutcome.mayEnd(body), let end = JourneyOutcome.detect(body) {
                outcome = end
                MainThread.every(milliseconds: Self.graceMilliseconds) { [unowned self] in
                    self.end(end.completed ? 0 : 1, end.description)
                    return false
                }
            }
        case .loadFailed(let uri, let why):
            end(2, "cannot load \(uri): \(why)")
        case .loaded:
            markReady()
        case .webProcessTerminated(let why):
            end(1, "\(why) (the page is gone; no journey end was received)")
        }
    }

    /// A host → web message: `window.GBGBridge.receive(<json>)`, as the seeds' host
    /// evaluates it. A line that is not JSON (a broken stdio host) is passed as a string,
    /// never evaluated as code.
    func answer(_ bytes: [UInt8]) {
        guard pageReady else { held.append(bytes); return }
        exchange.note(direction: "h2w", bytes: bytes)
        var script = Array("window.GBGBridge.receive(".utf8)
        if host?.sendsUncheckedLines == false || (try? JSONSafety.check(bytes)) != nil {
            script += bytes
        } else {
            logger.warning("the host sent a line that is not JSON; passed to the page as a string")
            script += JSONSafety.stringLiteral(bytes)
        }
        script += Array(");".utf8)
        webView?.evaluate(script)
    }

    /// The page can take answers: send what the host sent before it could (its
    /// `host.ready`, above all). A WKWebView app that evaluates before its page has loaded
    /// loses such messages; the shell does not imitate that race.
    func markReady() {
        guard !pageReady else { return }
        pageReady = true
        let early = held
        held = []
        for bytes in early { answer(bytes) }
    }

    /// Decides the exit status (the first decision wins) and stops the main loop.
    func end(_ code: Int32, _ why: String) {
        guard status == nil else { return }
        if let outcome, code == 3 {
            status = outcome.completed ? 0 : 1   // the grace after the journey's end ran out
            reason = outcome.description
        } else {
            status = code
            reason = why
        }
        g_main_loop_quit(loop)
    }

    func watchSignals() {
        for sig in [SIGINT, SIGTERM] {
            let box = Unmanaged.passRetained(SignalBox { [unowned self] in
                self.end(3, "stopped by a signal before the journey ended")
            }).toOpaque()
            g_unix_signal_add_full(G_PRIORITY_DEFAULT, sig, { data in
                Unmanaged<SignalBox>.fromOpaque(data!).takeUnretainedValue().action()
                return 1
            }, box, nil)
        }
    }

    /// After the loop: stop the host, finish the archive, close WebKit and wait for its
    /// processes. Returns the printed report.
    package func tearDown() -> String {
        host?.stop(timeoutSeconds: 2)
        // Answers the host sent while stopping, then the tap's last lines.
        for _ in 0..<20 { g_main_context_iteration(nil, 0) }
        recorder?.finish(reason: reason.isEmpty ? "run ended" : reason)
        tapFiles?.finish()
        webView?.destroy()
        for _ in 0..<50 { if g_main_context_iteration(nil, 0) == 0 { break } }
        return options.quiet ? "" : exchange.text
    }

    static func seconds(_ s: Double) -> String {
        s == s.rounded() ? String(Int(s)) : String(s)
    }

    /// Whether the recording failed (the run then exits 2).
    package var recordingFailure: String? { recorder?.failure ?? tapFiles?.failure }
}

/// A signal's action, kept alive by GLib.
private final class SignalBox {
    let action: () -> Void
    init(_ action: @escaping () -> Void) { self.action = action }
}
