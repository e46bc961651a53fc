import BridgeTransport

/// A host behind a WebView's bridge (``PageBridge``: `cdp:` and `webkit:` targets,
/// docs/WEBVIEW-TARGETS.md): each recorded web message is posted through the page's
/// bridge as the journey posted it; the host's answers come from the tap in the page.
/// One page serves the replay's connections one after another, each in a fresh document.
struct PageLink: ReplayLink {
    let bridge: any PageBridge

    /// What the host sent, as the page received it.
    var messages: AsyncStream<[UInt8]> { bridge.answers }

    /// Posts the message now; posts leave in order, without waiting for the page's round
    /// trip (a message the bridge's shape cannot carry is not posted, and its answers
    /// are then missing from the comparison).
    func send(_ message: [UInt8]) async throws {
        if let failure = bridge.failure { throw ReplayError(.connection, failure) }
        _ = bridge.post(message)
    }

    /// Posts the message and waits for the page's word on what crossed (one round trip to
    /// the page: replay judges the host on what it was given, not on what was recorded).
    func sendCrossing(_ message: [UInt8]) async throws -> [UInt8]? {
        if let failure = bridge.failure { throw ReplayError(.connection, failure) }
        switch try await bridge.post(message).value {
        case .crossed(let bytes): return bytes
        case .notSent: return nil
        }
    }

    /// Attaches with `open`, starts a fresh document (a reload, unless opening just loaded
    /// one), runs `body`, then detaches.
    ///
    /// - Throws: ``ReplayError`` (`connection`) when the page cannot be reached or has no bridge.
    static func with<T: Sendable>(_ spec: String, open: PageBridgeOpener,
                                  _ body: @Sendable (PageLink) async -> T) async throws(ReplayError) -> T {
        let bridge: any PageBridge
        do {
            bridge = try await open(spec)
            if !bridge.documentIsFresh { try await bridge.reload() }
        } catch {
            throw ReplayError(.connection, "\(error)")
        }
        defer { bridge.close() }
        return await body(PageLink(bridge: bridge))
    }
}
