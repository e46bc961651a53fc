import BridgeJSON

extension TapLogParser {
    /// Parses one line (without its LF): nothing for a blank line or an archive header
    /// or trailer line; one entry for most lines; two for a message line with a
    /// `crossing` member (docs/FORMAT.md §9): the `crossing` event (or, when the member
    /// is malformed, an error naming the line), then the message.
    public func parseLine(_ raw: UnsafeRawBufferPointer, number: Int) -> [Entry] {
        var line = raw
        if line.last == 0x0D { line = UnsafeRawBufferPointer(rebasing: line.dropLast()) }
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return [] }
        do throws(TapLineError) {
            return try entries(line, number: number)
        } catch {
            return [.error(error)]
        }
    }

    private func entries(_ line: UnsafeRawBufferPointer, number: Int) throws(TapLineError) -> [Entry] {
        func fail(_ reason: String) -> TapLineError { TapLineError(line: number, reason: reason) }
        let document: JSONDocument
        do throws(JSONError) {
            document = try JSONParser(limits: limits).parse(line)
        } catch {
            throw fail("not valid JSON: \(error.reason) (column \(error.column))")
        }
        guard case .object(let o) = document.value, let close = closingBraceOffset(line) else {
            throw fail("not a JSON object but \(document.value.kindName)")
        }
        if let dup = document.duplicateKeys.first(where: { $0.depth == 1 }) {
            throw fail("member \"\(dup.key)\" appears twice")
        }
        if o["bridgescope"] != nil { return [] }
        guard let tValue = o["t"] else { throw fail("missing \"t\" (epoch milliseconds or nanoseconds)") }
        guard case .number(let n) = tValue, n.isIntegerLexeme, let t = n.int64 else {
            throw fail("\"t\" must be an integer (epoch milliseconds or nanoseconds), not \(describe(tValue))")
        }
        guard t >= 0 else { throw fail("\"t\" must not be negative") }
        let time: Int64
        if t >= Self.nanosecondThreshold {
            time = t
        } else {
            let (ns, overflow) = t.multipliedReportingOverflow(by: 1_000_000)
            guard !overflow else { throw fail("\"t\" \(t) read as milliseconds is beyond the year 2262") }
            time = ns
        }
        if let e = o["event"] { return [.event(try event(e, in: o, time: time, number: number))] }
        if case .string(let why)? = o["unrecordable"] {
            throw fail("the tap could not serialize this message: \(why.prefix(512))")
        }
        guard let dValue = o["dir"] else { throw fail("missing \"dir\" (\"w2h\" or \"h2w\")") }
        guard case .string(let d) = dValue, d == "w2h" || d == "h2w" else {
            throw fail("\"dir\" must be \"w2h\" or \"h2w\", not \(JSONWriter().string(dValue))")
        }
        var conn: String?
        if let c = o["conn"], !c.isNull {
            guard case .string(let s) = c else { throw fail("\"conn\" must be a string, not \(c.kindName)") }
            conn = s
        }
        let kinds = ["msg", "text", "b64"]
        let present = o.members.indices.filter { kinds.contains(o.members[$0].key) }
        guard present.count == 1, let index = present.first else {
            throw fail(present.isEmpty ? "missing \"msg\" (or \"text\" or \"b64\")" : "more than one of \"msg\", \"text\", \"b64\"")
        }
        let member = o.members[index]
        let payload: [UInt8]
        switch member.key {
        case "msg":
            guard let range = o.rawValueRange(ofMemberAt: index, in: line, closingBrace: close) else {
                throw fail("cannot locate the bytes of \"msg\"")
            }
            payload = Array(line[range])
        case "text":
            guard case .string(let s) = member.value else { throw fail("\"text\" must be a string, not \(member.value.kindName)") }
            payload = Array(s.utf8)
        default:
            guard case .string(let s) = member.value, let bytes = Base64.decode(s.utf8) else {
                throw fail("\"b64\" must be a canonical base64 string (RFC 4648 §4, padded)")
            }
            payload = bytes
        }
        let direction = ArchiveDirection(rawValue: d)
        let message = Entry.message(TapMessage(line: number, time: time, direction: direction, connection: conn, payload: payload))
        guard let c = o["crossing"], !c.isNull else { return [message] }
        switch TapCrossing.read(c) {
        case .success(let crossing):
            guard crossing.isWorthAnEvent else { return [message] }
            // The connection the message is recorded on (`tap` for a line without `conn`).
            let event = ArchiveEvent(time: time, kind: .crossing, connection: conn ?? TapSource.defaultConnection,
                                     direction: direction, reason: crossing.reason)
            return [.event(TapEvent(line: number, event: event)), message]
        case .failure(let e):
            var error = fail(e.reason + "; the message is imported without it")
            error.messageImported = true
            return [.error(error), message]
        }
    }

    /// An event line: `event` names the kind, the other members are those of an archive
    /// event line (docs/FORMAT.md §5), each optional.
    private func event(_ value: JSONValue, in o: JSONObject, time: Int64, number: Int) throws(TapLineError) -> TapEvent {
        func fail(_ reason: String) -> TapLineError { TapLineError(line: number, reason: reason) }
        guard case .string(let kind) = value, !kind.isEmpty, kind.utf8.count <= 64 else {
            throw fail("\"event\" must be a kind such as \"open\", \"close\", \"gap\", \"drop\" or \"error\"")
        }
        func string(_ key: String) throws(TapLineError) -> String? {
            guard let v = o[key], !v.isNull else { return nil }
            guard case .string(let s) = v else { throw fail("\"\(key)\" must be a string, not \(v.kindName)") }
            return s
        }
        func count(_ key: String) throws(TapLineError) -> Int? {
            guard let v = o[key], !v.isNull else { return nil }
            guard case .number(let n) = v, n.isIntegerLexeme, let i = n.int64, i >= 0, let c = Int(exactly: i) else {
                throw fail("\"\(key)\" must be a non-negative integer")
            }
            return c
        }
        var direction: ArchiveDirection?
        if let d = try string("dir") {
            guard d == "w2h" || d == "h2w" else { throw fail("\"dir\" must be \"w2h\" or \"h2w\", not \"\(d.prefix(20))\"") }
            direction = ArchiveDirection(rawValue: d)
        }
        var reason = try string("reason")
        if reason == nil { reason = try string("text") }
        let connection = try string("conn")
        let bytes = try count("bytes"), packets = try count("count")
        var fileSequence: Int?
        var first = false
        var tapPlatform: String?
        if kind == "tap" {
            // A field tap's file header (docs/TAP.md §1).
            guard let seq = try count("seq"), seq > 0 else { throw fail("a tap file header needs \"seq\", a positive integer") }
            fileSequence = seq
            first = o["first"] == .bool(true)
            tapPlatform = try string("tap").map { String($0.prefix(32)) }
            if reason == nil {
                let platform = tapPlatform ?? "unknown"
                let redacted = o["redacted"] == .bool(false) ? "sensitive fields kept" : "redacted"
                reason = "\(platform.prefix(32)) tap, file \(seq)\(first ? " (its first)" : ""), \(redacted)"
            }
        }
        let event = ArchiveEvent(time: time, kind: ArchiveEvent.Kind(rawValue: kind), connection: connection,
                                 direction: direction, bytes: bytes, count: packets,
                                 reason: reason.map { String($0.prefix(4096)) })
        var tapEvent = TapEvent(line: number, event: event, fileSequence: fileSequence, firstFile: first)
        tapEvent.tapPlatform = tapPlatform
        return tapEvent
    }

    private func describe(_ v: JSONValue) -> String {
        if case .number(let n) = v { return "the number \(n.lexeme)" }
        return v.kindName
    }
}
