import Foundation

/// Records what crosses the bridge inside a shipped app to a tap log (docs/TAP.md), so a
/// session that failed on a customer's phone can be sent to support and analyzed with
/// `bridgescope record --tap`.
///
/// ```swift
/// let tap = BridgeTap(TapConfiguration(directory: caches + "/bridge-tap"))
/// let webView1 = tap.connection("webview-1")
/// // WKScriptMessageHandler:
/// webView1.webToHost(message.body)
/// // before webView.evaluateJavaScript("window.GBGBridge.receive(\(json))"):
/// webView1.hostToWeb(json)
/// ```
///
/// The calls never block and never throw: each takes the time and hands the message to a
/// bounded queue; a background thread builds its line (image and biometric fields
/// replaced by markers unless ``TapConfiguration/keepSensitiveFields``) and writes it
/// within ``TapConfiguration/writeIntervalMilliseconds``. Nothing unredacted is written.
/// What the queue cannot take is counted and written as a drop line.
public final class BridgeTap: Sendable {
    private let writer: TapWriter

    /// Starts a tap writing as `configuration` says. Failures to create or write files are
    /// reported to ``TapConfiguration/onError``, never thrown.
    public init(_ configuration: TapConfiguration) {
        writer = TapWriter(configuration: configuration)
    }

    /// The handle for one WebView: its lines carry `id` as `conn`.
    public func connection(_ id: String) -> TapConnection {
        TapConnection(tap: self, id: id)
    }

    /// Blocks until every line recorded before the call is in its file (e.g. before the
    /// app shares the files).
    public func flush() {
        writer.flush()
    }

    /// Writes what is queued and closes the file; later calls record nothing.
    public func close() {
        writer.close()
    }

    deinit {
        writer.close()
    }

    func record(_ body: TapBody, direction: String, connection: String) {
        let time = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        let size: Int
        switch body {
        case .text(let s): size = s.utf8.count
        case .json(let b): size = b.count
        case .unrecordable(let r): size = r.utf8.count
        }
        writer.enqueue(TapPendingMessage(body: body, direction: direction, connection: connection, time: time),
                       size: size + connection.utf8.count + 64, time: time, connection: connection)
    }
}

/// What a message was handed over as.
enum TapBody: Sendable {
    /// A string: recorded as `text`.
    case text(String)
    /// A JSON text the tap serialized from an object: recorded as `msg`.
    case json([UInt8])
    /// A value that could not be serialized, and why.
    case unrecordable(String)
}

/// One WebView's side of a ``BridgeTap``.
public struct TapConnection: Sendable {
    private let tap: BridgeTap
    /// The `conn` of its lines.
    public let id: String

    init(tap: BridgeTap, id: String) {
        self.tap = tap
        self.id = id
    }

    /// Records a message from the page to the host: what `WKScriptMessage.body` holds (a
    /// string is recorded as it is; a dictionary, array, number or boolean is serialized
    /// with `JSONSerialization`, keys sorted, since WebKit does not keep their order).
    public func webToHost(_ body: Any) {
        tap.record(Self.body(body), direction: "w2h", connection: id)
    }

    /// Records a message from the host to the page: the JSON text the host evaluates.
    public func hostToWeb(_ json: String) {
        tap.record(.text(json), direction: "h2w", connection: id)
    }

    static func body(_ body: Any) -> TapBody {
        if let s = body as? String { return .text(s) }
        if body is NSNull { return .json(Array("null".utf8)) }
        guard JSONSerialization.isValidJSONObject([body]) else {
            return .unrecordable("a \(type(of: body)) is not a JSON value")
        }
        do {
            let data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
            return .json(Array(data))
        } catch {
            return .unrecordable("JSONSerialization failed: \(error.localizedDescription)")
        }
    }
}
