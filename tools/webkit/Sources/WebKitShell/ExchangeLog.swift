import BridgeJSON
import BridgeProtocol

/// The exchange as the native side saw it, printed at the end of a run in
/// `tools/run-journey`'s layout: `conn  web  -> host  type  action  status  code`.
/// Keeps the first ``maxLines`` messages and counts the rest. A message of at most
/// ``lazyBytes`` is kept as it is and decoded only when printed (a decode per message
/// on the main loop would cost the lockstep round trip several percent); a larger one is
/// decoded at once and only its line kept.
package struct ExchangeLog {
    /// Messages kept for printing.
    package static let maxLines = 2_000
    /// The largest message kept undecoded until printing.
    package static let lazyBytes = 4_096
    private enum Entry {
        case raw(web: Bool, bytes: [UInt8])
        case line(String)
    }
    private var entries: [Entry] = []
    package private(set) var omitted = 0
    let connection: String

    package init(connection: String) {
        self.connection = connection
    }

    /// Notes one message (`w2h` or `h2w`).
    package mutating func note(direction: String, bytes: [UInt8]) {
        guard entries.count < Self.maxLines else { omitted += 1; return }
        let web = direction == "w2h"
        entries.append(bytes.count <= Self.lazyBytes ? .raw(web: web, bytes: bytes) : .line(line(web: web, bytes: bytes)))
    }

    private func line(web: Bool, bytes: [UInt8]) -> String {
        let result = EnvelopeDecoder().decode(bytes, direction: web ? .webToHost : .hostToWeb)
        let p = result.partial
        let type = result.envelope?.type.rawValue ?? p.type?.rawValue ?? "?"
        let action = result.envelope?.payload.action.rawValue ?? p.action ?? "?"
        let status = result.envelope?.payload.status?.rawValue ?? p.status?.rawValue ?? ""
        let code = result.envelope?.payload.error?.code.rawValue ?? ""
        var line = [connection, web ? "web  -> host" : "host -> web ", type, action, status, code].joined(separator: "  ")
        if result.envelope == nil { line += "  (not a valid envelope)" }
        return line
    }

    /// The printed lines.
    package var lines: [String] {
        entries.map { e in
            switch e {
            case .raw(let web, let bytes): return line(web: web, bytes: bytes)
            case .line(let l): return l
            }
        }
    }

    /// The printed block.
    package var text: String {
        var out = "exchange:\n" + lines.joined(separator: "\n")
        if omitted > 0 { out += "\n... and \(omitted) more message(s)" }
        return out
    }
}
