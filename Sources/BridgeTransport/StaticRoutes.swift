import Foundation

/// The plain HTTP side of the server, as a pure function from a request path to a
/// response: `/healthz`, `/bridge.js`, `/journeys/...` and an index at `/`.
public struct StaticRoutes: Sendable {
    /// A response to send.
    public struct Response: Sendable, Equatable {
        /// HTTP status code.
        public var status: Int
        /// Content-Type.
        var contentType: String
        /// Body.
        public var body: [UInt8]
    }

    /// Folder holding the journeys and `bridge.js`, if any.
    public let journeysDirectory: String?
    /// Largest file served, in bytes (8 MiB).
    public static let maxFileBytes = 8 << 20

    /// Creates the routes.
    public init(journeysDirectory: String?) {
        self.journeysDirectory = journeysDirectory
    }

    /// The journeys served: the `.html` files in the folder, sorted.
    public var journeys: [String] {
        guard let dir = journeysDirectory,
              let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return [] }
        return names.filter { $0.hasSuffix(".html") }.sorted()
    }

    /// Answers `GET path` (query string ignored).
    public func respond(method: String, uri: String) -> Response {
        let path = String(uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        guard method == "GET" || method == "HEAD" else { return text(405, "method not allowed\n") }
        switch path {
        case "/healthz":
            return text(200, "ok\n")
        case "/":
            let links = journeys.map { "<li><a href=\"/journeys/\($0)\">\($0)</a></li>" }.joined()
            let html = "<!doctype html><meta charset=utf-8><title>bridgescope host</title><h1>bridgescope reference host</h1><p>WebSocket: <code>/bridge</code>. Shim: <a href=\"/bridge.js\">/bridge.js</a>.</p><ul>\(links)</ul>"
            return Response(status: 200, contentType: "text/html; charset=utf-8", body: Array(html.utf8))
        case "/bridge.js":
            return file("bridge.js")
        case "/bridge":
            return text(426, "this endpoint speaks WebSocket: send an Upgrade request\n")
        default:
            if path.hasPrefix("/journeys/") { return file(String(path.dropFirst("/journeys/".count))) }
            return text(404, "not found\n")
        }
    }

    func file(_ name: String) -> Response {
        // Only plain names and subfolders: no "..", no hidden files, no absolute paths.
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard let dir = journeysDirectory, !name.isEmpty,
              parts.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") && !$0.contains("\\") && !$0.contains("%") }) else {
            return text(404, "not found\n")
        }
        let path = dir + "/" + name
        guard let attrs = try? FileManager.default.attributesOfItem(atPath: path),
              attrs[.type] as? FileAttributeType == .typeRegular,
              let size = attrs[.size] as? Int, size <= Self.maxFileBytes,
              let data = FileManager.default.contents(atPath: path) else {
            return text(404, "not found\n")
        }
        return Response(status: 200, contentType: Self.contentType(name), body: [UInt8](data))
    }

    static func contentType(_ name: String) -> String {
        if name.hasSuffix(".html") { return "text/html; charset=utf-8" }
        if name.hasSuffix(".js") { return "text/javascript; charset=utf-8" }
        if name.hasSuffix(".css") { return "text/css; charset=utf-8" }
        if name.hasSuffix(".json") { return "application/json" }
        if name.hasSuffix(".png") { return "image/png" }
        if name.hasSuffix(".svg") { return "image/svg+xml" }
        return "application/octet-stream"
    }

    func text(_ status: Int, _ body: String) -> Response {
        Response(status: status, contentType: "text/plain; charset=utf-8", body: Array(body.utf8))
    }
}
