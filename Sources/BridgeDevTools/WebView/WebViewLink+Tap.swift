import BridgeArchive
import BridgeJSON

extension WebViewLink {
    /// A page event: the tap's lines (a DevTools binding call, or a WebKit console message
    /// with this link's prefix) give the host's messages to ``answers``.
    func event(_ method: String, _ params: JSONObject) {
        switch method {
        case "Runtime.bindingCalled":
            guard params["name"]?.stringValue == binding, let payload = params["payload"]?.stringValue else { return }
            let context = params["executionContextId"].map { "\($0)" } ?? "?"
            guard heard(document: "cdp " + context) else { return }
            lines(Array(payload.utf8)[...])
        case "Console.messageAdded":
            guard let text = params["message"]?.objectValue?["text"]?.stringValue, text.hasPrefix(prefix + " ") else { return }
            console(Array(text.utf8))
        default:
            return
        }
    }

    /// One batch of the WebKit glue: `PREFIX DOC SEQ top|frame "HREF"` then the lines.
    /// A batch lost between two sequence numbers fails the link: what the host said can
    /// no longer be judged.
    func console(_ text: [UInt8]) {
        let newline = text.firstIndex(of: 0x0A) ?? text.endIndex
        let head = String(decoding: text[..<newline], as: UTF8.self).split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false)
        guard head.count == 5, let seq = Int(head[2]), head[3] == "top" else { return }
        let doc = String(head[1])
        guard heard(document: "webkit " + doc) else { return }
        let gap = state.withLock { s -> Int? in
            let last = s.documents[doc] ?? 0
            guard seq == last + 1 else { return seq > last ? seq - last - 1 : nil }
            s.documents[doc] = seq
            if s.documents.count > 64 { s.documents = [doc: seq] }
            return 0
        }
        guard let gap else { return }   // a repeat: already taken
        if gap > 0 {
            fail("the page's console lost \(gap) of the tap's messages: what the host sent can no longer be followed")
            return
        }
        if newline < text.endIndex { lines(text[(newline + 1)...]) }
    }

    /// Notes that `document` spoke; false when it is one a reload replaced (what it
    /// says belongs to an earlier document, not to the replay or case now running).
    func heard(document: String) -> Bool {
        state.withLock { s in
            if s.retired.contains(document) { return false }
            if s.heard.count < 4096 { s.heard.insert(document) }
            return true
        }
    }

    /// Every document heard so far is replaced: its later lines are dropped.
    func retireDocuments() {
        state.withLock { s in
            s.retired.formUnion(s.heard)
            s.heard = []
            if s.retired.count > 4096 { s.retired = [] }
        }
    }

    /// Tap lines joined by LF: each host → page message goes to ``answers``.
    func lines(_ text: ArraySlice<UInt8>) {
        var tap = TapLogParser()
        for line in text.split(separator: 0x0A, omittingEmptySubsequences: true) {
            for entry in tap.feed(Array(line) + [0x0A]) {
                if case .message(let m) = entry, m.direction == .hostToWeb { answersIn.yield(m.payload) }
            }
        }
    }
}
