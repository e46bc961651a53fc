import BridgeWebSocket
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real WebSocket exchange over loopback TCP, written with plain sockets: a server
/// thread answers the upgrade with permessage-deflate and echoes every message back as
/// a response; the client sends `count` masked, compressed requests. What was sent is
/// returned so captures of it can be checked.
enum LoopbackExchange {
    /// Opens a listening socket on 127.0.0.1 with a free port.
    static func listen() throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, Glibc.listen(fd, 4) == 0 else { throw Failure("bind/listen failed: errno \(errno)") }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return (fd, UInt16(bigEndian: addr.sin_port))
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    /// Runs the exchange to completion; returns the messages in the order each side sent.
    static func run(listener: (fd: Int32, port: UInt16), count: Int) throws -> [TestMessage] {
        let agreement = DeflateAgreement()
        let server = Thread {
            let conn = accept(listener.fd, nil, nil)
            defer { close(conn) }
            guard conn >= 0, let codec = try? PerMessageDeflate(agreement: agreement, maxMessageBytes: 1 << 24, isServer: true) else { return }
            var buffer: [UInt8] = []
            guard readHead(conn, &buffer) else { return }
            let response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: x\r\nSec-WebSocket-Extensions: \(agreement.responseHeader)\r\n\r\n"
            sendAll(conn, Array(response.utf8))
            var parser = WebSocketFrameParser()
            parser.append(contentsOf: buffer)
            var answered = 0
            while answered < count {
                while let frame = try? parser.next() {
                    guard frame.header.bits.opcode == .text, let text = try? codec.inflate(frame.payload) else { continue }
                    let reply = Array(String(decoding: text, as: UTF8.self).replacingOccurrences(of: "\"request\"", with: "\"response\"").utf8)
                    guard let body = try? codec.deflate(reply) else { return }
                    sendAll(conn, WebSocketFrameHeader.encode(rsv1: true, opcode: .text, payload: body))
                    answered += 1
                }
                var chunk = [UInt8](repeating: 0, count: 65536)
                let n = recv(conn, &chunk, chunk.count, 0)
                if n <= 0 { return }
                parser.append(contentsOf: chunk[0..<n])
            }
        }
        server.start()

        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = listener.port.bigEndian
        let connected = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { throw Failure("connect failed: errno \(errno)") }
        let request = "GET /bridge HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n"
        sendAll(fd, Array(request.utf8))
        var buffer: [UInt8] = []
        guard readHead(fd, &buffer) else { throw Failure("no upgrade response") }
        let codec = try PerMessageDeflate(agreement: agreement, maxMessageBytes: 1 << 24, isServer: false)
        var sent: [TestMessage] = []
        var parser = WebSocketFrameParser()
        parser.append(contentsOf: buffer)
        for i in 0..<count {
            let message = WebSocketSession.envelope(i)
            sent.append(TestMessage(direction: "w2h", bytes: message))
            sendAll(fd, WebSocketFrameHeader.encode(rsv1: true, opcode: .text, maskKey: UInt32(truncatingIfNeeded: i &* 2_654_435_761), payload: try codec.deflate(message)))
            // Wait for the echo so both directions interleave as in a real session.
            var reply: [UInt8]?
            while reply == nil {
                if let frame = try parser.next() {
                    reply = try codec.inflate(frame.payload)
                    continue
                }
                var chunk = [UInt8](repeating: 0, count: 65536)
                let n = recv(fd, &chunk, chunk.count, 0)
                if n <= 0 { throw Failure("server closed early") }
                parser.append(contentsOf: chunk[0..<n])
            }
            sent.append(TestMessage(direction: "h2w", bytes: reply!))
        }
        return sent
    }

    /// Accepts one connection on `listener` and reads its request head: the socket (the
    /// caller closes it) and the 101 response that accepts it (`Sec-WebSocket-Accept`
    /// computed from the request's key, as NIO's client checks); nil when no head came.
    static func acceptUpgrade(_ listener: Int32) -> (conn: Int32, switching: [UInt8])? {
        let conn = accept(listener, nil, nil)
        guard conn >= 0 else { return nil }
        var request: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: request, as: UTF8.self).contains("\r\n\r\n") {
            let n = recv(conn, &chunk, chunk.count, 0)
            if n <= 0 {
                close(conn)
                return nil
            }
            request += chunk[0..<n]
        }
        let key = String(decoding: request, as: UTF8.self).split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { String($0.dropFirst(18)).trimmingCharacters(in: .whitespaces) } ?? ""
        let head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(SHA1.webSocketAccept(key: key))\r\n\r\n"
        return (conn, Array(head.utf8))
    }

    /// Reads and drops what comes on `conn` until the peer closes it, or nothing has come
    /// for 60 s: a peer that never closes (a connection left open in a failed test) must
    /// not leave this thread blocked, which kept a finished test run from exiting (two
    /// clean-clone runs sat idle with all tests done and this thread in `recv`).
    static func drain(_ conn: Int32) {
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        _ = setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var chunk = [UInt8](repeating: 0, count: 4096)
        while recv(conn, &chunk, chunk.count, 0) > 0 {}
    }

    static func readHead(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
        let end: [UInt8] = [13, 10, 13, 10]
        while true {
            if let r = buffer.indices.dropLast(3).first(where: { Array(buffer[$0..<($0 + 4)]) == end }) {
                buffer.removeFirst(r + 4)
                return true
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return false }
            buffer += chunk[0..<n]
        }
    }

    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            off += n
        }
    }
}
