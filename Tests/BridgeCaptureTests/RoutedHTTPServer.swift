import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Answers each `GET` with the body given for its path (`200`, with `contentType`), or
/// `404` for a path it was not given, then closes the connection; remembers the paths
/// asked for. A stand-in for an inspector's page list server.
final class RoutedHTTPServer: @unchecked Sendable {
    let fd: Int32
    let port: Int
    private final class Log: Sendable {
        let paths = Mutex<[String]>([])
    }
    private let log = Log()

    /// The paths asked for, in order.
    var paths: [String] { log.paths.withLock { $0 } }

    /// `routes`: path -> (content type, body).
    init(_ routes: [String: (type: String, body: String)]) throws {
        let sock = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        fd = sock
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(sock, $0, len) } }
        listen(sock, 8)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(sock, $0, &len) } }
        port = Int(UInt16(bigEndian: addr.sin_port))
        let log = self.log
        let thread = Thread {
            while true {
                let c = accept(sock, nil, nil)
                // Shut down: the listening socket is closed here, by the only thread that
                // uses it, so its number cannot be reused under a later accept.
                if c < 0 { Glibc.close(sock); return }
                var request: [UInt8] = []
                var buf = [UInt8](repeating: 0, count: 4096)
                while request.firstRange(of: [13, 10, 13, 10]) == nil && request.count < 65536 {
                    let n = recv(c, &buf, buf.count, 0)
                    if n <= 0 { break }
                    request += buf[..<n]
                }
                let line = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self).split(separator: " ")
                let path = line.count > 1 ? String(line[1]) : ""
                log.paths.withLock { $0.append(path) }
                let answer: String
                if let route = routes[path] {
                    // As ios_webkit_debug_proxy writes it (iwdp_send_http).
                    answer = "HTTP/1.1 200 OK\r\nContent-length: \(route.body.utf8.count)\r\nConnection: close\r\n"
                        + "Access-Control-Allow-Origin: *\r\nAccess-Control-Allow-Methods: GET, HEAD\r\n"
                        + "Content-Type: \(route.type)\r\n\r\n" + route.body
                } else {
                    answer = "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found"
                }
                let bytes = Array(answer.utf8)
                var sent = 0
                while sent < bytes.count {
                    let n = bytes[sent...].withUnsafeBytes { send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if n <= 0 { break }
                    sent += n
                }
                Glibc.close(c)
            }
        }
        thread.start()
    }

    /// Stops accepting (the serving thread closes the socket).
    func close() {
        shutdown(fd, Int32(SHUT_RDWR))
    }

    /// A port nothing listens on (bound, then closed).
    static func closedPort() -> Int {
        let sock = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(sock) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(sock, $0, len) } }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(sock, $0, &len) } }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}
