/// A host reached through a page's own bridge: a WebView driven from outside through its
/// debugging door (`cdp:` and `webkit:` targets, docs/WEBVIEW-TARGETS.md), seen by
/// `replay` and `fuzz` as one long-lived connection whose host they cannot restart.
///
/// BridgeDevTools implements it (`WebViewLink`); the modules that drive hosts take it
/// through this protocol and an opener from the command line, so they do not depend on
/// the debugging protocols.
package protocol PageBridge: AnyObject, Sendable {
    /// What the host sent, as the page received it, in order; finishes when the page or
    /// the debugging connection goes away.
    var answers: AsyncStream<[UInt8]> { get }
    /// Posts one message through the page's bridge, as a journey would. Posts leave in
    /// the order of the calls, without waiting for each other (a round trip to a page can
    /// take 44 ms): the task gives what crossed.
    func post(_ message: [UInt8]) -> Task<PagePost, any Error>
    /// A fresh document of the page (a reload). A native host's state lives on.
    func reload() async throws
    /// Whether the current document was loaded by this bridge (a navigation on opening, a
    /// reload) and nothing has been posted in it yet: what the host said in it is all heard.
    var documentIsFresh: Bool { get }
    /// Why the page or its connection went away (crashed, closed), if it did.
    var failure: String? { get }
    /// The bridge's shape in the page: `ios` or `android`.
    var shape: String { get }
    /// Ends the debugging connection.
    func close()
}

/// What posting one message did.
package enum PagePost: Sendable, Equatable {
    /// Posted; the message as it crossed the bridge.
    case crossed([UInt8])
    /// Not posted, and why (the page's bridge cannot carry it in its shape).
    case notSent(String)
}

/// Opens a ``PageBridge`` named by a target spelling (`cdp:…`, `webkit:…`).
package typealias PageBridgeOpener = @Sendable (String) async throws -> any PageBridge
