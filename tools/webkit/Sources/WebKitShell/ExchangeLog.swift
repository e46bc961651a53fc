import BridgeJSON
import BridgeProtocol

/// The exchange as the native side saw it, printed at the end of a run in
/// `tools/run-journey`'s layout: `conn  web  -> host  type  action  status  code`.
/// Keeps the first ``maxLines`` lines and counts the rest.
package struct ExchangeLog {
    /// Lines kept for printing.
    package static let maxLines = 10_000
    package private(set) var lines: [String] = []
    package private(set) var omitted = 0
    let connection: String

    package init(connection: String) {
        self.connection = connection
    }

    /// Notes one message (`w2h` or `h2w`).
    package mutating func note(direction: String, bytes: [UInt8]) {
        guard lines.count < Self.maxLines else { omitted += 1; return }
        let web = direction == "w2h"
        let result = EnvelopeDecoder().decode(bytes, direction: web ? .webToHost : .hostToWeb)
        let p = result.partial
        let type = result.envelope?.type.rawValue ?? p.type?.rawValue ?? "?"
        let action = result.envelope?.payload.action.rawValue ?? p.action ?? "?"
        let status = result.envelope?.payload.status?.rawValue ?? p.status?.rawValue ?? ""
        let code = result.envelope?.payload.error?.code.rawValue ?? ""
        var line = [connection, web ? "web  -> host" : "host -> web ", type, action, status, code].joined(separator: "  ")
        if result.envelope == nil { line += "  (not a valid envelope)" }
        lines.append(line)
    }

    /// The printed block.
    package var text: String {
        var out = "exchange:\n" + lines.joined(separator: "\n")
        if omitted > 0 { out += "\n... and \(omitted) more message(s)" }
        return out
    }
}

/// How the page's journey ended: a `journey.complete` or `journey.error` event it posted.
package struct JourneyOutcome: Sendable, Equatable {
    package var completed: Bool
    /// The event's `data`, compact JSON.
    package var detail: String

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
