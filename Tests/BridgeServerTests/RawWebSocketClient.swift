import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A deliberately low-level WebSocket client for tests: blocking POSIX socket, frames
/// built by hand, so tests can send anything (unmasked, binary, oversized, broken).
final class RawWebSocketClient {
    struct Frame {
        var fin: Bool
        var rsv1: Bool
        var opcode: UInt8
        var payload: [UInt8]
        var text: String { String(decoding: payload, as: UTF8.self) }
        var closeCode: UInt16? { opcode == 8 && payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil }
    }

    enum Failure: Error { case connect(String), closed, timeout, badHandshake(String) }

    let fd: Int32
    var responseHead = ""
    private var buffer: [UInt8] = []

    /// Connects (from `source`, a loopback address such as `127.0.0.2`, when given);
    /// does not handshake.
    init(port: Int, receiveTimeout: Double = 5, source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { close(fd); throw Failure.connect("bind \(source): " + String(cString: strerror(errno))) }
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { close(fd); throw Failure.connect(String(cString: strerror(errno))) }
        var tv = timeval(tv_sec: Int(receiveTimeout), tv_usec: Int((receiveTimeout - Double(Int(receiveTimeout))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Sends the upgrade request and reads the response head; returns the status code.
    @discardableResult
    func handshake(path: String = "/bridge", origin: String? = nil, extensions: String? = nil) throws -> Int {
        var req = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        req += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if let origin { req += "Origin: \(origin)\r\n" }
        if let extensions { req += "Sec-WebSocket-Extensions: \(extensions)\r\n" }
        req += "\r\n"
        try sendRaw(Array(req.utf8))
        while true {
            if let end = find([13, 10, 13, 10]) {
                responseHead = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                let status = responseHead.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
                return status
            }
            try fill()
        }
    }

    /// The value of a response header (case-insensitive name).
    func header(_ name: String) -> String? {
        for line in responseHead.split(separator: "\r\n") {
            let kv = line.split(separator: ":", maxSplits: 1)
            if kv.count == 2 && kv[0].lowercased() == name.lowercased() { return kv[1].trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }

    func sendRaw(_ bytes: [UInt8]) throws {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure.closed }
            off += n
        }
    }

    /// Sends one frame; masked unless told otherwise.
    func sendFrame(opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv1: Bool = false, masked: Bool = true,
                   announcedLength: Int? = nil) throws {
        var f: [UInt8] = [(fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode]
        let len = announcedLength ?? payload.count
        let maskBit: UInt8 = masked ? 0x80 : 0
        if len < 126 { f.append(maskBit | UInt8(len)) } else if len <= 0xFFFF {
            f.append(maskBit | 126); f.append(UInt8(len >> 8)); f.append(UInt8(len & 0xFF))
        } else {
            f.append(maskBit | 127)
            for s in stride(from: 56, through: 0, by: -8) { f.append(UInt8((len >> s) & 0xFF)) }
        }
        if masked {
            let key: [UInt8] = [0x12, 0x34, 0x56, 0x78]
            f += key
            f += payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
        } else {
            f += payload
        }
        try sendRaw(f)
    }

    func sendText(_ s: String) throws { try sendFrame(opcode: 1, Array(s.utf8)) }

    /// Reads one frame (server frames are unmasked).
    func readFrame() throws -> Frame {
        func need(_ n: Int) throws { while buffer.count < n { try fill() } }
        try need(2)
        let b0 = buffer[0], b1 = buffer[1]
        var len = Int(b1 & 0x7F)
        var header = 2
        if len == 126 { try need(4); len = Int(buffer[2]) << 8 | Int(buffer[3]); header = 4 }
        else if len == 127 { try need(10); len = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }; header = 10 }
        try need(header + len)
        let frame = Frame(fin: b0 & 0x80 != 0, rsv1: b0 & 0x40 != 0, opcode: b0 & 0x0F, payload: Array(buffer[header..<(header + len)]))
        buffer.removeFirst(header + len)
        return frame
    }

    /// Reads frames until a data or close frame arrives (answers nothing; skips pings).
    func readDataOrClose() throws -> Frame {
        while true {
            let f = try readFrame()
            if f.opcode == 9 || f.opcode == 10 { continue }
            return f
        }
    }

    /// The code of a close frame that arrives within `seconds` (data and pings skipped),
    /// or nil if none does.
    func closeCode(within seconds: Double) -> UInt16? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            // Frames already buffered need no poll.
            if buffer.count < 2 && poll(&p, 1, Int32(left * 1000)) <= 0 { return nil }
            guard let f = try? readFrame() else { return nil }
            if f.opcode == 8 { return f.closeCode }
        }
    }

    /// Whether the server closed the TCP connection (reads until EOF or timeout).
    func waitForEOF() -> Bool {
        var tmp = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &tmp, tmp.count, 0)
            if n == 0 { return true }
            if n < 0 { return false }
        }
    }

    private func fill() throws {
        var tmp = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &tmp, tmp.count, 0)
        if n == 0 { throw Failure.closed }
        if n < 0 { throw Failure.timeout }
        buffer += tmp[..<n]
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for i in 0...(buffer.count - pattern.count) where Array(buffer[i..<(i + pattern.count)]) == pattern { return i }
        return nil
    }
}
