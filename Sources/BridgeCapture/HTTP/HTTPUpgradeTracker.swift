import BridgeWebSocket

/// Follows the HTTP/1.1 exchange at the start of a connection until a WebSocket upgrade
/// succeeds (RFC 6455 §4) or the connection shows it is something else. A value-type
/// state machine fed each direction's reassembled bytes.
///
/// The side that sends requests is the client: the web side. Requests and responses
/// before the upgrade are skipped (bodies by `Content-Length`; a chunked or
/// close-delimited body ends the tracking, as does anything that is not HTTP/1.x).
struct HTTPUpgradeTracker {
    /// Most bytes the client may send after its upgrade request before the answer
    /// arrives (held, then handed to the frame decoder). 1 MiB.
    static let maxHeldBytes = 1 << 20

    /// What the exchange has shown so far.
    enum Outcome: Equatable {
        /// Nothing decided yet.
        case pending
        /// The server answered 101: bytes after the heads are WebSocket frames.
        case upgraded(Upgrade)
        /// Not a WebSocket connection (or not one this tracker can follow).
        case notWebSocket(String)
    }

    /// A successful upgrade.
    struct Upgrade: Equatable {
        /// Index (0 or 1) of the direction from client to server.
        var clientDirection: Int
        /// The request target of the upgrade (`/bridge`).
        var target: String
        /// The permessage-deflate agreement from the 101 response, nil when off.
        var deflate: DeflateAgreement?
        /// Bytes already received after the heads, per direction index.
        var leftovers: [[UInt8]]
    }

    private var buffers: [[UInt8]] = [[], []]
    /// How far each buffer was searched for the blank line ending a head, so a head
    /// arriving one byte per segment costs linear time, not quadratic.
    private var searched = [0, 0]
    private var bodyRemaining = [0, 0]
    private var requester: Int?
    /// For each request awaiting its response: whether it asked for an upgrade, and its target.
    private var pending: [(upgrade: Bool, head: Bool, target: String)] = []

    /// Feeds bytes of direction `index` (0 or 1).
    mutating func receive(_ index: Int, _ bytes: [UInt8]) -> Outcome {
        buffers[index].append(contentsOf: bytes)
        var progress = true
        while progress {
            progress = false
            for d in 0..<2 {
                switch step(d) {
                case .pending(let moved): progress = progress || moved
                case let done: return done.outcome
                }
            }
        }
        if buffers.contains(where: { $0.count > Self.maxHeldBytes }) {
            return .notWebSocket("more than \(Self.maxHeldBytes) bytes held before an HTTP head completed")
        }
        return .pending
    }

    private enum Step {
        case pending(moved: Bool)
        case done(Outcome)
        var outcome: Outcome {
            if case .done(let o) = self { return o }
            return .pending
        }
    }

    private mutating func step(_ d: Int) -> Step {
        if bodyRemaining[d] > 0 {
            let n = min(bodyRemaining[d], buffers[d].count)
            guard n > 0 else { return .pending(moved: false) }
            buffers[d].removeFirst(n)
            bodyRemaining[d] -= n
            searched[d] = 0
            return .pending(moved: true)
        }
        guard !buffers[d].isEmpty else { return .pending(moved: false) }
        // A client waiting for its upgrade answer holds what it sends next.
        if d == requester, pending.contains(where: { $0.upgrade }) { return .pending(moved: false) }
        if !headComplete(d) {
            // Still incomplete: only decide early that it is not HTTP at all.
            if buffers[d].withUnsafeBytes({ HTTPHead.looksLikeHead($0) }) == false {
                return .done(.notWebSocket("stream does not start with an HTTP/1.x request or response"))
            }
            return .pending(moved: false)
        }
        let parsed = buffers[d].withUnsafeBytes { HTTPHead.parse($0) }
        switch parsed {
        case .needMore: return .pending(moved: false)
        case .notHTTP(let why): return .done(.notWebSocket(why))
        case .head(let head, let length):
            buffers[d].removeFirst(length)
            searched[d] = 0
            return head.isResponse ? response(head, from: d) : request(head, from: d)
        }
    }

    /// Whether the buffer holds a blank line (LF LF or LF CR LF), or enough bytes for
    /// the parser to reject it; scans only bytes not scanned before.
    private mutating func headComplete(_ d: Int) -> Bool {
        let b = buffers[d]
        if b.count >= HTTPHead.maxHeadBytes { return true }
        var i = max(1, searched[d] - 2)
        while i < b.count {
            if b[i] == 0x0A && (b[i - 1] == 0x0A || (i >= 2 && b[i - 1] == 0x0D && b[i - 2] == 0x0A)) { return true }
            i += 1
        }
        searched[d] = b.count
        return false
    }

    private mutating func request(_ head: HTTPHead, from d: Int) -> Step {
        if let r = requester, r != d { return .done(.notWebSocket("both sides send HTTP requests")) }
        requester = d
        let parts = head.startLine.split(separator: " ")
        let target = parts.count >= 2 ? String(parts[1]) : ""
        let upgrade = head.method == "GET" && head.asksForWebSocket
        pending.append((upgrade: upgrade, head: head.method == "HEAD", target: target))
        if head.hasTransferEncoding { return .done(.notWebSocket("chunked request body (not followed)")) }
        bodyRemaining[d] = head.contentLength ?? 0
        return .pending(moved: true)
    }

    private mutating func response(_ head: HTTPHead, from d: Int) -> Step {
        if requester == d { return .done(.notWebSocket("both sides send HTTP responses")) }
        requester = 1 - d
        let status = head.status ?? 0
        if status == 101 {
            guard head.asksForWebSocket else { return .done(.notWebSocket("101 response upgrades to something else")) }
            let request = pending.first
            if let request, !request.upgrade { return .done(.notWebSocket("101 response to a request that did not ask for WebSocket")) }
            var deflate: DeflateAgreement?
            if let ext = head.field("Sec-WebSocket-Extensions") {
                deflate = DeflateAgreement.negotiate(offerHeader: ext) ?? DeflateAgreement.lenient(responseHeader: ext)
            }
            var leftovers: [[UInt8]] = [[], []]
            leftovers[d] = buffers[d]
            leftovers[1 - d] = buffers[1 - d]
            return .done(.upgraded(Upgrade(clientDirection: 1 - d, target: request?.target ?? "", deflate: deflate, leftovers: leftovers)))
        }
        if (100..<200).contains(status) { return .pending(moved: true) }  // interim, no body
        let request = pending.isEmpty ? nil : pending.removeFirst()
        if status == 204 || status == 304 || request?.head == true { return .pending(moved: true) }
        if head.hasTransferEncoding { return .done(.notWebSocket("chunked response body (not followed)")) }
        guard let length = head.contentLength else {
            return .done(.notWebSocket("response body without Content-Length (not followed)"))
        }
        bodyRemaining[d] = length
        return .pending(moved: true)
    }
}

extension DeflateAgreement {
    /// Reads a server's `Sec-WebSocket-Extensions` answer leniently: when it names
    /// `permessage-deflate`, the agreement with the context-takeover flags it carries
    /// (window sizes do not matter to an inflater with a 15-bit window); nil otherwise.
    static func lenient(responseHeader: String) -> DeflateAgreement? {
        for ext in responseHeader.split(separator: ",") {
            let params = ext.split(separator: ";").map { $0.trimmingWhitespace().lowercased() }
            guard params.first == "permessage-deflate" else { continue }
            var a = DeflateAgreement()
            a.serverNoContextTakeover = params.contains("server_no_context_takeover")
            a.clientNoContextTakeover = params.contains("client_no_context_takeover")
            return a
        }
        return nil
    }
}
