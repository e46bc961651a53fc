import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A sentence for a SwiftNIO error, for people: "connection refused" rather than
/// `SingleConnectionFailure(target: [IPv4]127.0.0.1/127.0.0.1:1, error: connection reset
/// (error set): Connection refused) (errno: 111))`.
package enum NetworkErrorText {
    /// The reason in words: the system's text for an errno, or a short description.
    package static func describe(_ error: any Error) -> String {
        if let e = error as? NIOConnectionError {
            if let first = e.connectionErrors.first { return describe(first.error) }
            if let dns = e.dnsAError ?? e.dnsAAAAError { return "the name \(e.host) does not resolve (\(describe(dns)))" }
            return "no address to connect to for \(e.host)"
        }
        if let e = error as? IOError { return String(cString: strerror(e.errnoCode)).lowercased() }
        if let e = error as? ChannelError {
            switch e {
            case .connectTimeout(let t): return "no answer within \(Double(t.nanoseconds) / 1e9) s"
            case .ioOnClosedChannel, .alreadyClosed, .eof, .outputClosed: return "the connection was closed"
            default: return "\(e)"
            }
        }
        return "\(error)"
    }
}
