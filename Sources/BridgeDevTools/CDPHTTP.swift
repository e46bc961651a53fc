import BridgeCapture
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking `GET` with `Connection: close` over a plain socket, for the DevTools
/// discovery pages (`/json/version`, `/json/list`): bounded in size and time.
enum CDPHTTP {
    /// The whole answer (head and body) to `GET path`, at most `maxBytes`.
    static func get(host: String, port: Int, path: String, maxBytes: Int, timeout: Int) throws(CaptureError) -> [UInt8] {
        let endpoint = "http://\(host):\(port)"
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw CaptureError(.cdp, "cannot resolve \(host) (from \(endpoint))")
        }
        defer { freeaddrinfo(list) }
        var lastError = ECONNREFUSED
        var fd: Int32 = -1
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd >= 0 {
                var tv = timeval(tv_sec: timeout, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { break }
                lastError = errno
                close(fd)
                fd = -1
            }
            cursor = info.pointee.ai_next
        }
        guard fd >= 0 else {
            throw CaptureError(.cdp, "cannot connect to \(endpoint): \(String(cString: strerror(lastError))) "
                + "(is the browser running with --remote-debugging-port=\(port)? for an Android WebView: "
                + "adb forward tcp:\(port) localabstract:webview_devtools_remote_<pid>)")
        }
        defer { close(fd) }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nAccept: application/json\r\nConnection: close\r\n\r\n".utf8)
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw CaptureError(.cdp, "\(endpoint): sending GET \(path) failed: \(String(cString: strerror(errno)))")
            }
            sent += n
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    throw CaptureError(.cdp, "\(endpoint)\(path): no complete answer within \(timeout) s (not a DevTools endpoint?)")
                }
                throw CaptureError(.cdp, "\(endpoint)\(path): reading failed: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            response += buffer[..<n]
            if response.count > maxBytes {
                throw CaptureError(.cdp, "\(endpoint)\(path): the answer is over \(maxBytes) bytes (not a DevTools endpoint?)")
            }
            if let body = contentLengthComplete(response) , body { break }
        }
        if response.isEmpty {
            throw CaptureError(.cdp, "\(endpoint)\(path): the server closed the connection without answering (not a DevTools endpoint?)")
        }
        return response
    }

    /// True when the head is complete and carries a Content-Length whose body has arrived
    /// (DevTools answers with Content-Length and may keep the connection open); nil when
    /// that cannot be told yet.
    static func contentLengthComplete(_ response: [UInt8]) -> Bool? {
        guard let split = response.firstRange(of: [13, 10, 13, 10]) else { return nil }
        let head = String(decoding: response[..<split.lowerBound], as: UTF8.self).lowercased()
        for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
            guard let length = Int(line.dropFirst("content-length:".count).trimmingPrefix(" ")) else { return nil }
            return response.count - split.upperBound >= length
        }
        return nil
    }
}
