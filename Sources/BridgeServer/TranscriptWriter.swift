import BridgeJSON
import BridgeProtocol
import Foundation
import NIOConcurrencyHelpers

/// Writes every message of a server run as a tap log (docs/FORMAT.md, "tap log"):
/// one JSON object per line, `{"t":<epoch ns>,"dir":"w2h"|"h2w","conn":"c1","msg":<envelope>}`
/// (`"text"` instead of `msg` when the bytes are not one JSON value). The log imports
/// with `bridgescope record --tap` and analyses with `bridgescope analyze`.
public final class TranscriptWriter: Sendable {
    private let handle: FileHandle
    private let lock = NIOLock()

    /// Creates (truncates) the file at `path`.
    public init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        guard let h = FileHandle(forWritingAtPath: path) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        handle = h
    }

    /// Appends one message.
    public func write(connection: String, direction: Direction, message: [UInt8]) {
        let line = Self.line(time: Self.nowNanoseconds(), connection: connection, direction: direction, message: message)
        lock.withLock { handle.write(Data(line)) }
    }

    /// Flushes and closes the file.
    public func close() {
        lock.withLock { try? handle.close() }
    }

    /// One tap line for a message (pure; exposed for tests).
    public static func line(time: Int64, connection: String, direction: Direction, message: [UInt8]) -> [UInt8] {
        var out: [UInt8] = Array("{\"t\":\(time),\"dir\":\"\(direction.rawValue)\",\"conn\":".utf8)
        JSONWriter.writeString(connection, into: &out)
        let verbatim = !message.contains(0x0A) && !message.contains(0x0D) && (try? JSONParser().parse(message)) != nil
        if verbatim {
            out += Array(",\"msg\":".utf8)
            out += message
        } else {
            out += Array(",\"text\":".utf8)
            JSONWriter.writeString(String(decoding: message, as: UTF8.self), into: &out)
        }
        out += Array("}\n".utf8)
        return out
    }

    static func nowNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}

/// How a journey ended, as the host saw it: a `journey.complete` or `journey.error`
/// event from the web side.
public struct JourneyOutcome: Sendable, Hashable, CustomStringConvertible {
    /// Whether the journey completed (`journey.complete`) rather than failed.
    public var completed: Bool
    /// The event's data, compact JSON.
    public var detail: String

    /// The outcome a web-to-host message announces, if it is a journey end event.
    public static func detect(_ message: [UInt8]) -> JourneyOutcome? {
        guard let e = EnvelopeDecoder().decode(message, direction: .webToHost).envelope, e.type == .event else { return nil }
        let detail = e.payload.data.map { JSONWriter().string(.object($0)) } ?? "{}"
        switch e.payload.action {
        case .journeyComplete: return JourneyOutcome(completed: true, detail: detail)
        case .journeyError: return JourneyOutcome(completed: false, detail: detail)
        default: return nil
        }
    }

    /// `journey complete {...}` or `journey error {...}`.
    public var description: String { (completed ? "journey complete " : "journey error ") + detail }
}
