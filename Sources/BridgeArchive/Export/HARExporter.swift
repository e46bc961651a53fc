import BridgeJSON

/// Exports an archive as HAR 1.2 the way Chrome DevTools writes WebSocket traffic, so it
/// opens in DevTools (Network panel, "Import HAR file") and in HAR viewers: one entry
/// per connection with `"_resourceType":"websocket"`, a `101 Switching Protocols`
/// response, and the messages in `_webSocketMessages` as
/// `{"type":"send"|"receive","time":<epoch seconds>,"opcode":1,"data":"<text>"}`
/// (`send` is web to host; a message that is not UTF-8 gets opcode 2 and base64 data).
///
/// The URL is the server side of a capture's connection id (`ws://127.0.0.1:8787/`), the
/// upstream named by a proxy's `open` event, or `ws://bridgescope.invalid/<conn>`.
/// Entries are written at the end, so the messages are held in memory: HAR is meant for
/// sessions a browser could show, not for millions of messages.
public struct HARExporter: ArchiveExporter {
    struct Message {
        var sent: Bool
        var time: Int64
        var payload: [UInt8]
    }

    struct Connection {
        var id: String
        var url: String
        var opened: Int64
        var closed: Int64?
        var messages: [Message] = []
    }

    private let toolVersion: String
    private var order: [String] = []
    private var connections: [String: Connection] = [:]

    /// Creates an exporter; `toolVersion` goes into `log.creator.version`.
    public init(toolVersion: String) {
        self.toolVersion = toolVersion
    }

    /// Writes nothing yet.
    public mutating func begin(_ header: ArchiveHeader, into out: inout [UInt8]) {}

    /// Collects records and open/close events.
    public mutating func write(_ item: ArchiveItem, into out: inout [UInt8]) {
        switch item {
        case .record(let r):
            connection(r.connection, time: r.time, reason: nil)
            connections[r.connection]!.messages.append(Message(sent: r.direction == .webToHost, time: r.time, payload: r.payload))
        case .event(let e) where e.kind == .open:
            guard let c = e.connection else { return }
            connection(c, time: e.time, reason: e.reason)
        case .event(let e) where e.kind == .close:
            guard let c = e.connection, connections[c] != nil else { return }
            connections[c]!.closed = e.time
        default:
            return
        }
    }

    private mutating func connection(_ id: String, time: Int64, reason: String?) {
        if connections[id] == nil {
            order.append(id)
            connections[id] = Connection(id: id, url: Self.url(connection: id, openReason: reason), opened: time)
        } else if let reason, let upstream = Self.upstream(reason) {
            connections[id]!.url = upstream
        }
    }

    /// Writes the whole HAR document.
    public mutating func end(into out: inout [UInt8]) {
        out.append(contentsOf: #"{"log":{"version":"1.2","creator":{"name":"bridgescope","version":"#.utf8)
        JSONWriter.writeString(toolVersion, into: &out)
        out.append(contentsOf: #"},"pages":[],"entries":["#.utf8)
        for (n, id) in order.enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            entry(connections[id]!, into: &out)
        }
        out.append(contentsOf: "]}}\n".utf8)
    }

    private func entry(_ c: Connection, into out: inout [UInt8]) {
        let end = c.closed ?? c.messages.last?.time ?? c.opened
        out.append(contentsOf: #"{"startedDateTime":"#.utf8)
        JSONWriter.writeString(ArchivePrettyPrinter.isoTime(c.opened), into: &out)
        out.append(contentsOf: #","time":"#.utf8)
        out.append(contentsOf: Self.decimal(max(0, end - c.opened), scale: 1_000_000, digits: 3).utf8)
        out.append(contentsOf: #","request":{"method":"GET","url":"#.utf8)
        JSONWriter.writeString(c.url, into: &out)
        out.append(contentsOf: #","httpVersion":"HTTP/1.1","headers":[{"name":"Upgrade","value":"websocket"},{"name":"Connection","value":"Upgrade"}],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0}"#.utf8)
        out.append(contentsOf: #","response":{"status":101,"statusText":"Switching Protocols","httpVersion":"HTTP/1.1","headers":[{"name":"Upgrade","value":"websocket"},{"name":"Connection","value":"Upgrade"}],"cookies":[],"content":{"size":0,"mimeType":"x-unknown"},"redirectURL":"","headersSize":-1,"bodySize":0,"_transferSize":0}"#.utf8)
        out.append(contentsOf: #","cache":{},"timings":{"blocked":-1,"dns":-1,"ssl":-1,"connect":-1,"send":0,"wait":0,"receive":0},"_resourceType":"websocket","_bridgescopeConnection":"#.utf8)
        JSONWriter.writeString(c.id, into: &out)
        out.append(contentsOf: #","_webSocketMessages":["#.utf8)
        for (i, m) in c.messages.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: (m.sent ? #"{"type":"send","time":"# : #"{"type":"receive","time":"#).utf8)
            out.append(contentsOf: Self.decimal(m.time, scale: 1_000_000_000, digits: 6).utf8)
            m.payload.withUnsafeBytes { p in
                if String(validating: m.payload, as: UTF8.self) != nil {
                    out.append(contentsOf: #","opcode":1,"data":"#.utf8)
                    ArchiveLineEncoder().appendEscaped(p, into: &out)
                } else {
                    out.append(contentsOf: #","opcode":2,"data":""#.utf8)
                    Base64.encode(p, into: &out)
                    out.append(UInt8(ascii: "\""))
                }
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: "]}".utf8)
    }

    /// `value / scale` with `digits` decimals, exactly (no floating point).
    static func decimal(_ value: Int64, scale: Int64, digits: Int) -> String {
        let negative = value < 0
        let v = negative ? -value : value
        var frac = String(v % scale)
        let width = String(scale).count - 1
        frac = String(repeating: "0", count: width - frac.count) + frac
        return (negative ? "-" : "") + String(v / scale) + "." + frac.prefix(digits)
    }

    /// `ws://<server>/` for a capture's `client-server` id; the proxy's upstream; or a
    /// placeholder naming the connection.
    static func url(connection id: String, openReason: String?) -> String {
        if let reason = openReason, let upstream = upstream(reason) { return upstream }
        let parts = id.split(separator: "-")
        if parts.count == 2, parts[1].contains(":"), parts[1].allSatisfy({ $0.isHexDigit || ".:[]".contains($0) }) {
            return "ws://\(parts[1])/"
        }
        let safe = id.unicodeScalars.map { $0.properties.isAlphabetic || ("0"..."9").contains($0) || "-._~".unicodeScalars.contains($0) ? String($0) : "_" }.joined()
        return "ws://bridgescope.invalid/\(safe)"
    }

    /// The `ws://...` URL at the end of a proxy's open reason (`page ... to ws://host:port/path`).
    static func upstream(_ reason: String) -> String? {
        let marker = Array(" to ws://".utf8)
        let bytes = Array(reason.utf8)
        guard bytes.count >= marker.count,
              let start = (0...(bytes.count - marker.count)).last(where: { bytes[$0..<($0 + marker.count)].elementsEqual(marker) })
        else { return nil }
        let url = "ws://" + String(decoding: bytes[(start + marker.count)...], as: UTF8.self)
        return url.contains(" ") ? nil : url
    }
}
