import BridgeArchive
import BridgeJSON

extension WebInspectorSession {
    /// One of the tap's console messages (``WebInspectorTapScript``: `PREFIX DOC SEQ
    /// top|frame "HREF"` then LF-joined tap lines) from target `id`: records, `crossing`
    /// and `drop` events, `open`/`close` events when a document starts, and an `error`
    /// event for what cannot be used (a bad header, a bad line, messages lost between
    /// two sequence numbers).
    mutating func console(_ id: String, _ text: [UInt8], now: Int64) -> [Action] {
        let newline = text.firstIndex(of: 0x0A) ?? text.endIndex
        let head = String(decoding: text[..<newline], as: UTF8.self).split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false)
        guard head.count == 5, let seq = Int(head[2]), seq > 0, head[1].count <= 16, !head[1].isEmpty,
              head[3] == "top" || head[3] == "frame", let label = targets[id]?.label else {
            return [.event(ArchiveEvent(time: now, kind: .error, bytes: text.count,
                                        reason: "a console message with the tap's prefix but not its header from \(pageURL); ignored"))]
        }
        let token = String(head[1])
        var actions: [Action] = []
        if documents[token] == nil {
            let top = head[3] == "top"
            let url = (try? JSONParser().parse(Array(head[4].utf8)).value.stringValue) ?? nil
            if top {
                // A new top document replaces the target's documents (a reload or a navigation in the process).
                for old in documents.filter({ $0.value.target == id }).sorted(by: { $0.value.conn < $1.value.conn }) {
                    actions += close(old.key, reason: "documents replaced (navigation or reload)", now: now)
                }
            }
            var target = targets[id]!
            target.documents += 1
            targets[id] = target
            let conn = "p\(page).t\(label).d\(target.documents)"
            documents[token] = Document(conn: conn, target: id, top: top, url: url ?? "", seq: 0)
            openConnections[conn] = url ?? ""
            connectionsOpened += 1
            actions.append(.event(ArchiveEvent(time: now, kind: .open, connection: conn,
                                               reason: "\(top ? "page" : "iframe") \(url ?? "") (target \(id), document \(token))")))
        }
        guard var doc = documents[token] else { return actions }
        if seq != doc.seq + 1 {
            actions.append(.event(ArchiveEvent(time: now, kind: .error, connection: doc.conn,
                                               reason: seq <= doc.seq ? "the tap's console message \(seq) came again (after \(doc.seq)); ignored"
                                                   : "the tap's console messages \(doc.seq + 1)...\(seq - 1) never arrived: not recorded")))
            if seq <= doc.seq { return actions }
        }
        doc.seq = seq
        documents[token] = doc
        guard newline < text.endIndex else { return actions }
        var tap = TapLogParser()
        for line in text[(newline + 1)...].split(separator: 0x0A, omittingEmptySubsequences: false) {
            for entry in tap.feed(Array(line) + [0x0A]) {
                switch entry {
                case .message(let m):
                    actions.append(.record(time: m.time, direction: m.direction, connection: doc.conn, payload: m.payload))
                case .event(let e) where e.event.kind == .crossing || e.event.kind == .drop:
                    var event = e.event
                    event.connection = doc.conn
                    actions.append(.event(event))
                case .event(let e) where e.event.kind == .tap:
                    continue   // the tap's header: the document announcing itself
                case .event:
                    actions.append(.event(ArchiveEvent(time: now, kind: .error, connection: doc.conn, bytes: line.count,
                                                       reason: "the page's tap sent an event line the recorder does not take; ignored")))
                case .error(let e):
                    actions.append(.event(ArchiveEvent(time: now, kind: .error, connection: doc.conn, bytes: line.count,
                                                       reason: "a bad tap line in the page's console (\(e.reason))"
                                                           + (e.messageImported ? "; its message was recorded" : "; ignored"))))
                }
            }
        }
        return actions
    }
}
