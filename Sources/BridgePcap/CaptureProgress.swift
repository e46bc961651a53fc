import BridgeCapture
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A snapshot of a recording's progress.
public struct CaptureProgress: Sendable, Hashable {
    /// Messages recorded.
    public var messages = 0
    /// Bytes of messages recorded.
    public var bytes = 0
    /// WebSocket connections seen.
    public var connections = 0
    /// Packets the capture layer dropped.
    public var drops = 0
    /// Time since the recording started, in nanoseconds.
    public var elapsed: Int64 = 0

    /// Creates a snapshot.
    public init(messages: Int = 0, bytes: Int = 0, connections: Int = 0, drops: Int = 0, elapsed: Int64 = 0) {
        self.messages = messages
        self.bytes = bytes
        self.connections = connections
        self.drops = drops
        self.elapsed = elapsed
    }

    /// `12,345 messages  4.2 MB  3 connections  0 drops  00:01:07`.
    public var line: String {
        let seconds = Int(elapsed / 1_000_000_000)
        let clock = String(format2: seconds / 3600) + ":" + String(format2: seconds / 60 % 60) + ":" + String(format2: seconds % 60)
        return "\(Self.grouped(messages)) messages  \(Self.size(bytes))  \(Self.grouped(connections)) connection\(connections == 1 ? "" : "s")  "
            + "\(Self.grouped(drops)) drop\(drops == 1 ? "" : "s")  \(clock)"
    }

    static func grouped(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 && c != "-" && out != "-" { out.append(",") }
            out.append(c)
        }
        return out
    }

    static func size(_ n: Int) -> String {
        if n < 1000 { return "\(n) B" }
        let units = ["kB", "MB", "GB", "TB"]
        var v = Double(n) / 1000
        var u = 0
        while v >= 1000 && u < units.count - 1 { v /= 1000; u += 1 }
        let tenths = Int((v * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[u])"
    }
}

extension String {
    fileprivate init(format2 n: Int) { self = n < 10 ? "0\(n)" : "\(n)" }
}
