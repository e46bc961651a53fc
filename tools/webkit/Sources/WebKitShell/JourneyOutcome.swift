import BridgeJSON
import BridgeProtocol

/// How the page's journey ended: a `journey.complete` or `journey.error` event it posted.
package struct JourneyOutcome: Sendable, Equatable {
    package var completed: Bool
    /// The event's `data`, compact JSON.
    package var detail: String

    /// Whether `body` holds `"journey.` at all: the cheap test before ``detect(_:)``.
    package static func mayEnd(_ body: [UInt8]) -> Bool {
        body.firstRange(of: Array("journey.".utf8)) != nil
    }

    /// The outcome a posted body announces, if it is a journey end event.
    package static func detect(_ body: [UInt8]) -> JourneyOutcome? {
        guard let e = EnvelopeDecoder().decode(body, direction: .webToHost).envelope, e.type == .event else { return nil }
        let completed: Bool
        switch e.payload.action {
        case .journeyComplete: completed = true
        case .journeyError: completed = false
        default: return nil
        }
        return JourneyOutcome(completed: completed, detail: e.payload.data.map { JSONWriter().string(.object($0)) } ?? "{}")
    }

    /// `journey complete {...}` or `journey error {...}`.
    package var description: String { (completed ? "journey complete " : "journey error ") + detail }
}
