import CWebKitGTK

/// One WebKitGTK web view in an offscreen window, wired as the seeds' `BridgeWebView` +
/// `BridgeWebViewConfigurator` wire a WKWebView: a bootstrap script injected at document
/// start, script message handlers, and JavaScript evaluated to answer.
///
/// Main thread only (``MainThread``): every call goes to WebKit, which is not thread safe.
package final class WebView {
    /// What the view reports to its owner.
    package enum Report {
        /// A handler's message: its name and the body as the native side receives it
        /// (`jsc_value_to_json` of the value WebKit delivered; a string body's characters).
        case message(handler: String, body: [UInt8], isString: Bool)
        /// The page could not be loaded.
        case loadFailed(uri: String, reason: String)
        /// The web content process ended (crashed, killed, or out of memory).
        case webProcessTerminated(reason: String)
        /// A page finished loading (`load-changed`, `WEBKIT_LOAD_FINISHED`).
        case loaded
    }

    private let window: UnsafeMutablePointer<GtkWidget>
    private let view: UnsafeMutablePointer<GtkWidget>
    private let manager: UnsafeMutablePointer<WebKitUserContentManager>
    private var boxes: [Unmanaged<HandlerBox>] = []
    private let onReport: (Report) -> Void
    private var destroyed = false

    /// Creates the view. `bootstrapScript` runs at document start in the top frame, before
    /// the page's first script; each of `handlers` becomes
    /// `window.webkit.messageHandlers.<name>.postMessage(value)`.
    package init(bootstrapScript: String, handlers: [String], onReport: @escaping (Report) -> Void) {
        self.onReport = onReport
        // Ephemeral, and a new web process for each cross-site navigation, as in WKWebView
        // (docs/WEBKIT.md): the bridge and the page tap must survive the swap.
        let context = bridgescope_web_context_new()
        view = webkit_web_view_new_with_context(context)
        g_object_unref(context)
        let ucm = webkit_web_view_get_user_content_manager(Self.webView(view))!
        manager = ucm
        let script = webkit_user_script_new(bootstrapScript, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME,
                                            WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, nil, nil)
        webkit_user_content_manager_add_script(ucm, script)
        webkit_user_script_unref(script)
        let settings = webkit_web_view_get_settings(Self.webView(view))
        webkit_settings_set_enable_developer_extras(settings, 1)
        if getenv("BRIDGESCOPE_WEBKIT_CONSOLE") != nil { webkit_settings_set_enable_write_console_messages_to_stdout(settings, 1) }
        window = gtk_offscreen_window_new()
        gtk_window_set_default_size(gcast(window), 800, 600)
        gtk_container_add(gcast(window), view)
        gtk_widget_show_all(window)
        for name in handlers { register(name, ucm) }
        connectViewSignals()
    }

    private static func webView(_ widget: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<WebKitWebView> { gcast(widget) }

    private func register(_ name: String, _ ucm: UnsafeMutablePointer<WebKitUserContentManager>) {
        webkit_user_content_manager_register_script_message_handler(ucm, name)
        let box = Unmanaged.passRetained(HandlerBox(name: name, report: { [unowned self] in self.report($0) }))
        boxes.append(box)
        let handler: @convention(c) (OpaquePointer?, OpaquePointer?, gpointer?) -> Void = { _, result, data in
            guard let result, let data else { return }
            let box = Unmanaged<HandlerBox>.fromOpaque(data).takeUnretainedValue()
            let value = webkit_javascript_result_get_js_value(result)
            let isString = jsc_value_is_string(value) != 0
            let text = isString ? jsc_value_to_string(value) : jsc_value_to_json(value, 0)
            var bytes: [UInt8] = []
            if let text {
                bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self),
                                                  count: strlen(text)))
                g_free(text)
            } else {
                bytes = Array("null".utf8)  // jsc_value_to_json gives NULL for undefined
            }
            box.report(.message(handler: box.name, body: bytes, isString: isString))
        }
        g_signal_connect_data(UnsafeMutableRawPointer(ucm), "script-message-received::\(name)",
                              unsafeBitCast(handler, to: GCallback.self), box.toOpaque(), nil, GConnectFlags(rawValue: 0))
    }

    private func connectViewSignals() {
        let box = Unmanaged.passRetained(HandlerBox(name: "", report: { [unowned self] in self.report($0) }))
        boxes.append(box)
        let failed: @convention(c) (OpaquePointer?, WebKitLoadEvent, UnsafePointer<gchar>?, UnsafeMutablePointer<GError>?, gpointer?) -> gboolean = { _, _, uri, error, data in
            let box = Unmanaged<HandlerBox>.fromOpaque(data!).takeUnretainedValue()
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            box.report(.loadFailed(uri: uri.map { String(cString: $0) } ?? "", reason: message))
            return 0
        }
        g_signal_connect_data(UnsafeMutableRawPointer(view), "load-failed", unsafeBitCast(failed, to: GCallback.self),
                              box.toOpaque(), nil, GConnectFlags(rawValue: 0))
        let terminated: @convention(c) (OpaquePointer?, WebKitWebProcessTerminationReason, gpointer?) -> Void = { _, reason, data in
            let box = Unmanaged<HandlerBox>.fromOpaque(data!).takeUnretainedValue()
            let text: String
            switch reason {
            case WEBKIT_WEB_PROCESS_CRASHED: text = "the web process crashed"
            case WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT: text = "the web process exceeded its memory limit"
            default: text = "the web process was terminated"
            }
            box.report(.webProcessTerminated(reason: text))
        }
        let changed: @convention(c) (OpaquePointer?, WebKitLoadEvent, gpointer?) -> Void = { _, event, data in
            guard event == WEBKIT_LOAD_FINISHED else { return }
            Unmanaged<HandlerBox>.fromOpaque(data!).takeUnretainedValue().report(.loaded)
        }
        g_signal_connect_data(UnsafeMutableRawPointer(view), "load-changed", unsafeBitCast(changed, to: GCallback.self),
                              box.toOpaque(), nil, GConnectFlags(rawValue: 0))
        g_signal_connect_data(UnsafeMutableRawPointer(view), "web-process-terminated", unsafeBitCast(terminated, to: GCallback.self),
                              box.toOpaque(), nil, GConnectFlags(rawValue: 0))
    }

    private func report(_ r: Report) {
        guard !destroyed else { return }
        onReport(r)
    }

    /// Loads `uri` (http, https, file or about).
    package func load(_ uri: String) {
        webkit_web_view_load_uri(Self.webView(view), uri)
    }

    /// Evaluates `script` in the page's main world, without waiting for its result.
    package func evaluate(_ script: [UInt8]) {
        guard !destroyed else { return }
        script.withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { c in
                webkit_web_view_evaluate_javascript(Self.webView(view), c.baseAddress, gssize(c.count), nil, nil, nil, nil, nil)
            }
        }
    }

    /// Closes the page and destroys the view; WebKit then ends its web process.
    package func destroy() {
        guard !destroyed else { return }
        destroyed = true
        webkit_web_view_try_close(Self.webView(view))
        gtk_widget_destroy(window)
    }
}

/// A signal connection's context: which handler, and where to report.
private final class HandlerBox {
    let name: String
    let report: (WebView.Report) -> Void
    init(name: String, report: @escaping (WebView.Report) -> Void) {
        self.name = name
        self.report = report
    }
}

/// A GObject pointer as another type of its hierarchy (the C cast macros such as
/// `WEBKIT_WEB_VIEW()` do not import into Swift).
@inline(__always)
func gcast<T, U>(_ p: UnsafeMutablePointer<U>) -> UnsafeMutablePointer<T> {
    UnsafeMutableRawPointer(p).assumingMemoryBound(to: T.self)
}
