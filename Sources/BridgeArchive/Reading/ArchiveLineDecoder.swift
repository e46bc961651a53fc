import BridgeJSON

/// Why one archive line could not be decoded (a reader turns it into an
/// ``ArchiveFinding`` of kind `invalid-line`).
public struct ArchiveLineError: Error, Sendable, Hashable {
    /// A sentence saying what is wrong with the line.
    public var reason: String
}

/// Decodes one archive line (without its newline) into an ``ArchiveEntry``. Pure and
/// stateless: ordering rules (header first, trailer last) belong to the reader.
///
/// The message of a `msg` record is sliced out of the line using the parser's member
/// offsets, never re-encoded, so a reader returns exactly the bytes that were written.
public struct ArchiveLineDecoder: Sendable {
    /// The JSON limits for one line (``BridgeArchiveFormat/lineLimits`` by default).
    public var limits: JSONLimits

    /// Creates a decoder with the documented line limits.
    public init(limits: JSONLimits = BridgeArchiveFormat.lineLimits) {
        self.limits = limits
    }

    /// Decodes a line of an archive of `formatVersion` (older versions are migrated
    /// one step at a time, see ``ArchiveMigration``); throws ``ArchiveLineError`` with a
    /// reason when the line is not valid.
    public func decode(_ line: UnsafeRawBufferPointer,
                       formatVersion: Int = BridgeArchiveFormat.currentVersion) throws(ArchiveLineError) -> ArchiveEntry {
        let document: JSONDocument
        do {
            document = try JSONParser(limits: limits).parse(line)
        } catch {
            throw ArchiveLineError(reason: "not valid JSON: \(error.reason) (byte \(error.offset) of the line)")
        }
        guard case .object(var object) = document.value, let close = closingBraceOffset(line) else {
            throw ArchiveLineError(reason: "not a JSON object but \(document.value.kindName)")
        }
        if let dup = document.duplicateKeys.first(where: { $0.depth == 1 }) {
            throw ArchiveLineError(reason: "member \"\(dup.key)\" appears twice")
        }
        if formatVersion < BridgeArchiveFormat.currentVersion {
            try ArchiveMigration.migrate(&object, from: formatVersion)
        }
        if let marker = object["bridgescope"] {
            switch marker.stringValue {
            case BridgeArchiveFormat.headerMarker?: return .header(try header(object))
            case BridgeArchiveFormat.trailerMarker?: return .trailer(try trailer(object))
            default: throw ArchiveLineError(reason: "unknown \"bridgescope\" line kind \(JSONWriter().string(marker))")
            }
        }
        if object["event"] != nil { return .event(try event(object)) }
        if object["seq"] != nil { return .record(try record(object, line: line, closingBrace: close)) }
        throw ArchiveLineError(reason: "not a header, record, event or trailer line")
    }

    /// Decodes a line held in an array.
    public func decode(_ line: [UInt8],
                       formatVersion: Int = BridgeArchiveFormat.currentVersion) throws(ArchiveLineError) -> ArchiveEntry {
        let result: Result<ArchiveEntry, ArchiveLineError> = line.withUnsafeBytes { buf in
            do throws(ArchiveLineError) { return .success(try decode(buf, formatVersion: formatVersion)) } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    func header(_ o: JSONObject) throws(ArchiveLineError) -> ArchiveHeader {
        let version = try int(o, "formatVersion")
        var h = ArchiveHeader(
            source: try string(o, "source"),
            host: try optionalString(o, "host"),
            filter: try optionalString(o, "filter"),
            startTime: try int64(o, "startTime"),
            toolVersion: try string(o, "toolVersion")
        )
        h.formatVersion = version
        let known: Set<String> = ["bridgescope", "formatVersion", "source", "host", "filter", "startTime", "toolVersion"]
        h.extra = o.members.filter { !known.contains($0.key) }
        return h
    }

    func trailer(_ o: JSONObject) throws(ArchiveLineError) -> ArchiveTrailer {
        ArchiveTrailer(
            records: try int(o, "records"), events: try int(o, "events"), bytes: try int(o, "bytes"),
            drops: try int(o, "drops"), gaps: try int(o, "gaps"), gapBytes: try optionalInt(o, "gapBytes") ?? 0,
            errors: try optionalInt(o, "errors") ?? 0, endTime: try int64(o, "endTime")
        )
    }

    func event(_ o: JSONObject) throws(ArchiveLineError) -> ArchiveEvent {
        ArchiveEvent(
            seq: try int(o, "seq"), time: try int64(o, "t"),
            kind: ArchiveEvent.Kind(rawValue: try string(o, "event")),
            connection: try optionalString(o, "conn"),
            direction: try optionalString(o, "dir").map(ArchiveDirection.init(rawValue:)),
            bytes: try optionalInt(o, "bytes"), count: try optionalInt(o, "count"),
            line: try optionalInt(o, "line"), reason: try optionalString(o, "reason")
        )
    }

    func record(_ o: JSONObject, line: UnsafeRawBufferPointer, closingBrace: Int) throws(ArchiveLineError) -> ArchiveRecord {
        let seq = try int(o, "seq")
        let time = try int64(o, "t")
        let dir = ArchiveDirection(rawValue: try string(o, "dir"))
        let conn = try string(o, "conn")
        let present = o.members.indices.filter { ArchivePayloadEncoding.all.map(\.rawValue).contains(o.members[$0].key) }
        guard present.count == 1, let index = present.first else {
            throw ArchiveLineError(reason: present.isEmpty
                ? "record has none of \"msg\", \"text\", \"b64\""
                : "record has more than one of \"msg\", \"text\", \"b64\"")
        }
        let member = o.members[index]
        let payload: [UInt8]
        let encoding = ArchivePayloadEncoding(rawValue: member.key)
        switch encoding {
        case .message:
            guard let range = o.rawValueRange(ofMemberAt: index, in: line, closingBrace: closingBrace) else {
                throw ArchiveLineError(reason: "cannot locate the bytes of \"msg\"")
            }
            payload = Array(line[range])
        case .text:
            guard case .string(let s) = member.value else { throw typeError("text", "a string", member.value) }
            payload = Array(s.utf8)
        default:
            guard case .string(let s) = member.value else { throw typeError("b64", "a string", member.value) }
            guard let bytes = Base64.decode(s.utf8) else {
                throw ArchiveLineError(reason: "\"b64\" is not canonical base64 (RFC 4648 §4, padded)")
            }
            payload = bytes
        }
        return ArchiveRecord(seq: seq, time: time, direction: dir, connection: conn, payload: payload, encoding: encoding)
    }

    // MARK: member access

    private func typeError(_ key: String, _ expected: String, _ v: JSONValue) -> ArchiveLineError {
        ArchiveLineError(reason: "\"\(key)\" must be \(expected), not \(v.kindName)")
    }

    private func string(_ o: JSONObject, _ key: String) throws(ArchiveLineError) -> String {
        guard let v = o[key] else { throw ArchiveLineError(reason: "missing \"\(key)\"") }
        guard case .string(let s) = v else { throw typeError(key, "a string", v) }
        return s
    }

    private func optionalString(_ o: JSONObject, _ key: String) throws(ArchiveLineError) -> String? {
        guard let v = o[key], !v.isNull else { return nil }
        guard case .string(let s) = v else { throw typeError(key, "a string or null", v) }
        return s
    }

    private func int64(_ o: JSONObject, _ key: String) throws(ArchiveLineError) -> Int64 {
        guard let v = o[key] else { throw ArchiveLineError(reason: "missing \"\(key)\"") }
        guard case .number(let n) = v, n.isIntegerLexeme, let i = n.int64 else {
            throw typeError(key, "an integer that fits in 64 bits", v)
        }
        return i
    }

    private func int(_ o: JSONObject, _ key: String) throws(ArchiveLineError) -> Int {
        let v = try int64(o, key)
        guard v >= 0 else { throw ArchiveLineError(reason: "\"\(key)\" must not be negative") }
        return Int(v)
    }

    private func optionalInt(_ o: JSONObject, _ key: String) throws(ArchiveLineError) -> Int? {
        guard o[key] != nil else { return nil }
        return try int(o, key)
    }
}
