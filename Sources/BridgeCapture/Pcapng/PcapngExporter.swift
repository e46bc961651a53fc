import BridgeArchive
import BridgeWebSocket

/// Exports an archive as a pcapng capture (`bridgescope export --pcapng`) that
/// Wireshark and tshark decode as the same WebSocket messages: for each connection,
/// synthesized Ethernet/IPv4/TCP packets carrying a TCP handshake, an HTTP/1.1 upgrade
/// (`GET /bridge` answered by `101`, no extensions), one unfragmented, uncompressed
/// frame per message (text when the bytes are UTF-8, else binary; masked from the web
/// side as RFC 6455 requires) and a FIN exchange at its `close` event or the end.
///
/// Addresses and ports come from a capture's connection id (`10.0.0.5:50412-10.0.0.9:8787`);
/// other ids (a proxy's `c1`, a tap's `tap`, IPv6 ids) get `10.1.x.y:port` (web side) and
/// `10.0.0.1:8787` (host side). Each message is stamped with its record's time; packets
/// the archive has no time for (handshake, acknowledgments) take the time of the
/// message or event that needed them. Events other than open/close are not exported
/// (a pcapng cannot say "this was lost"). Streams: memory is per open connection.
public struct PcapngExporter: ArchiveExporter {
    /// The masking key of the first client frame; the next ones count up, so the
    /// output is deterministic.
    static let firstMaskKey: UInt32 = 0x3761_9A2C

    struct Peer {
        var address: UInt32
        var port: UInt16
        var mac: UInt8
        var next: UInt32
        var tuple: (address: UInt32, port: UInt16, mac: UInt8) { (address, port, mac) }
    }

    struct Connection {
        var client: Peer
        var server: Peer
    }

    private let blocks = PcapngBlockWriter()
    private let builder = TCPPacketBuilder()
    private var connections: [String: Connection] = [:]
    private var synthesized = 0
    private var ipID: UInt16 = 1
    private var maskKey = PcapngExporter.firstMaskKey
    private var lastTime: Int64 = 0

    /// Creates an exporter.
    public init() {}

    /// Writes the section header and the Ethernet interface block.
    public mutating func begin(_ header: ArchiveHeader, into out: inout [UInt8]) {
        blocks.header(application: "bridgescope export (\(header.source))", linkType: 1, into: &out)
    }

    /// Writes packets for records and open/close events.
    public mutating func write(_ item: ArchiveItem, into out: inout [UInt8]) {
        switch item {
        case .record(let r):
            open(r.connection, time: r.time, into: &out)
            let fromClient = r.direction != .hostToWeb
            let text = String(validating: r.payload, as: UTF8.self) != nil
            let key: UInt32? = fromClient ? nextMaskKey() : nil
            let frame = WebSocketFrameHeader.encode(opcode: text ? .text : .binary, maskKey: key, payload: r.payload)
            send(frame[...], on: r.connection, fromClient: fromClient, time: r.time, into: &out)
        case .event(let e) where e.kind == .open:
            if let c = e.connection { open(c, time: e.time, into: &out) }
        case .event(let e) where e.kind == .close:
            if let c = e.connection { close(c, time: e.time, into: &out) }
        default:
            return
        }
    }

    /// Closes the connections still open.
    public mutating func end(into out: inout [UInt8]) {
        for id in connections.keys.sorted() { close(id, time: lastTime, into: &out) }
    }

    private mutating func nextMaskKey() -> UInt32 {
        defer { maskKey &+= 0x0101_0101 }
        return maskKey
    }

    /// Opens the connection if needed: SYN, SYN-ACK, ACK, upgrade request, 101.
    private mutating func open(_ id: String, time: Int64, into out: inout [UInt8]) {
        guard connections[id] == nil else { return }
        var c: Connection
        if let (client, server) = Self.endpoints(id) {
            c = Connection(client: Peer(address: client.0, port: client.1, mac: 1, next: 0x1000_0000),
                           server: Peer(address: server.0, port: server.1, mac: 2, next: 0x5000_0000))
        } else {
            synthesized += 1
            let n = UInt32(synthesized)
            c = Connection(client: Peer(address: 0x0A01_0000 | (n & 0xFFFF), port: UInt16(40000 + n % 20000), mac: 1, next: 0x1000_0000),
                           server: Peer(address: 0x0A00_0001, port: 8787, mac: 2, next: 0x5000_0000))
        }
        connections[id] = c
        segment(id, fromClient: true, flags: [.syn], payload: [], time: time, into: &out)
        connections[id]!.client.next &+= 1
        segment(id, fromClient: false, flags: [.syn, .ack], payload: [], time: time, into: &out)
        connections[id]!.server.next &+= 1
        segment(id, fromClient: true, flags: [.ack], payload: [], time: time, into: &out)
        let host = Self.dotted(c.server.address) + ":\(c.server.port)"
        let request = "GET /bridge HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        let response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"
        send(Array(request.utf8)[...], on: id, fromClient: true, time: time, into: &out)
        send(Array(response.utf8)[...], on: id, fromClient: false, time: time, into: &out)
    }

    /// FIN from the web side, FIN from the host side, last ACK.
    private mutating func close(_ id: String, time: Int64, into out: inout [UInt8]) {
        guard connections[id] != nil else { return }
        segment(id, fromClient: true, flags: [.fin, .ack], payload: [], time: time, into: &out)
        connections[id]!.client.next &+= 1
        segment(id, fromClient: false, flags: [.fin, .ack], payload: [], time: time, into: &out)
        connections[id]!.server.next &+= 1
        segment(id, fromClient: true, flags: [.ack], payload: [], time: time, into: &out)
        connections[id] = nil
    }

    /// Sends bytes in segments of at most ``TCPPacketBuilder/maxSegmentPayload``, each
    /// acknowledged by the peer.
    private mutating func send(_ bytes: ArraySlice<UInt8>, on id: String, fromClient: Bool, time: Int64, into out: inout [UInt8]) {
        var rest = bytes
        while !rest.isEmpty {
            let piece = rest.prefix(TCPPacketBuilder.maxSegmentPayload)
            rest = rest.dropFirst(piece.count)
            segment(id, fromClient: fromClient, flags: rest.isEmpty ? [.ack, .psh] : [.ack], payload: piece, time: time, into: &out)
            if fromClient { connections[id]!.client.next &+= UInt32(piece.count) } else { connections[id]!.server.next &+= UInt32(piece.count) }
            segment(id, fromClient: !fromClient, flags: [.ack], payload: [], time: time, into: &out)
        }
    }

    private mutating func segment(_ id: String, fromClient: Bool, flags: TCPPacketBuilder.Flags, payload: ArraySlice<UInt8>,
                                  time: Int64, into out: inout [UInt8]) {
        let c = connections[id]!
        let (from, to) = fromClient ? (c.client, c.server) : (c.server, c.client)
        let ack: UInt32 = flags.contains(.ack) ? to.next : 0
        let packet = builder.packet(from: from.tuple, to: to.tuple, seq: from.next, ack: ack, flags: flags, ipID: ipID, payload: payload)
        ipID &+= 1
        lastTime = max(lastTime, time)
        blocks.packet(packet, time: lastTime, into: &out)
    }

    /// `(address, port)` pairs from `a.b.c.d:p-e.f.g.h:q`, else nil.
    static func endpoints(_ id: String) -> ((UInt32, UInt16), (UInt32, UInt16))? {
        let parts = id.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let a = endpoint(parts[0]), let b = endpoint(parts[1]) else { return nil }
        return (a, b)
    }

    static func endpoint(_ text: Substring) -> (UInt32, UInt16)? {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        let octets = text[..<colon].split(separator: ".", omittingEmptySubsequences: false).compactMap { UInt8($0) }
        guard octets.count == 4, text[..<colon].split(separator: ".", omittingEmptySubsequences: false).count == 4 else { return nil }
        return (octets.reduce(0) { $0 << 8 | UInt32($1) }, port)
    }

    static func dotted(_ a: UInt32) -> String {
        "\(a >> 24).\(a >> 16 & 0xFF).\(a >> 8 & 0xFF).\(a & 0xFF)"
    }
}
