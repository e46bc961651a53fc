import BridgeTransport
import BridgeJSON
import BridgeProtocol
import Foundation
import Synchronization
import BridgeClock

/// Writes every message of a server run as a tap log (docs/FORMAT.md, "tap log"):
/// one JSON object per line, `{"t":<epoch ns>,"dir":"w2h"|"h2w","conn":"c1","msg":<envelope>}`
/// (`"text"` instead of `msg` when the bytes are not one JSON value). The log imports
/// with `bridgescope record --tap` and analyses with `bridgescope analyze`.
public final class TranscriptWriter: Sendable {
    /// The open file; `nil` once closed.
    private let handle: Mutex<FileHandle?>

    /// Creates (truncates) the file at `path`.
    public init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        guard let h = FileHandle(forWritingAtPath: path) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        handle = Mutex(h)
    }

    /// Appends one message.
    public func write(connection: String, direction: Direction, message: [UInt8]) {
        let line = Self.line(time: WallClock.now.nanoseconds, connection: connection, direction: direction, message: message)
        handle.withLock { $0?.write(Data(line)) }
    }

    /// Flushes and closes the file; later writes are dropped.
    public func close() {
        handle.withLock {
            try? $0?.close()
            $0 = nil
        }
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

}

/// How a journey ended, as the host saw it (not the analyzer's `JourneyOutcome`): a `journey.complete` or `journey.error`
/// event from the web side.
public struct JourneyEnd: Sendable, Hashable, CustomStringConvertible {
    /// Whether the journey completed (`journey.complete`) rather than failed.
    public var completed: Bool
    /// The event's data, compact JSON.
    public var detail: String

    /// Creates an outcome.
    public init(completed: Bool, detail: String) {
        self.completed = completed
        self.detail = detail
    }

    /// The outcome a web-to-host message announces, if it is a journey end event.
    public static func detect(_ message: [UInt8]) -> JourneyEnd? {
        EnvelopeDecoder().decode(message, direction: .webToHost).envelope.flatMap(JourneyEnd.init)
    }

    /// The outcome an envelope announces, if it is a `journey.complete` or `journey.error` event.
    public init?(_ e: Envelope) {
        guard e.type == .event else { return nil }
        switch e.payload.action {
        case .journeyComplete: completed = true
        case .journeyError: completed = false
        default: return nil
        }
        detail = e.payload.data.map { JSONWriter().string(.object($0)) } ?? "{}"
    }

    /// `journey complete {...}` or `journey error {...}`.
    public var description: String { (completed ? "journey complete " : "journey error ") + detail }
}
