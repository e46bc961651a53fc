import BridgeCapture
import BridgeDevTools
import BridgeTransport
import Logging

/// What `fuzz` and `replay` attach to a `cdp:` or `webkit:` target with: the page's
/// bridge through its debugging door (``WebViewLink``, docs/WEBVIEW-TARGETS.md), the tap
/// read from tools/taps/js (``CDPTapScript``).
enum WebViewOpener {
    /// Opens the page `spec` names.
    static func opener(logger: Logger = Logger(label: "bridgescope.webview")) -> PageBridgeOpener {
        { spec in
            do throws(CaptureError) {
                guard let parsed = try WebViewSpec(parsing: spec) else {
                    throw CaptureError(.usage, "\(spec): not a cdp: or webkit: target")
                }
                return try await WebViewLink.open(parsed, tapSource: try CDPTapScript.load(), logger: logger)
            } catch {
                throw WebViewTargetError(message: error.message)
            }
        }
    }
}

/// Why a WebView could not be attached to (its message names the endpoint and what to do).
struct WebViewTargetError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
