import BridgeJSON

extension ArchiveInterpreter {
    /// A `msg` record line read without a full parse; nil for anything else (the line
    /// then goes through the full decoder).
    func fastRecord(_ line: ArchiveLine) -> ArchiveRecordView? {
        line.slice.withUnsafeBytes { b -> ArchiveRecordView? in
            guard let members = RecordLineScanner.members(b, maxDepth: BridgeArchiveFormat.lineLimits.maxDepth) else { return nil }
            var seq: Int?, time: Int64?, dir: String?, conn: String?, msg: Range<Int>?
            let small = JSONParser(limits: BridgeArchiveFormat.messageLimits)
            for (n, m) in members.enumerated() {
                // A key twice: the full decoder reports it.
                for other in members[..<n] where other.key.count == m.key.count && b[other.key].elementsEqual(b[m.key]) { return nil }
                if RecordLineScanner.key(m, in: b, is: "msg") { msg = m.value; continue }
                if RecordLineScanner.key(m, in: b, is: "text") || RecordLineScanner.key(m, in: b, is: "b64")
                    || RecordLineScanner.key(m, in: b, is: "event") || RecordLineScanner.key(m, in: b, is: "bridgescope") {
                    return nil
                }
                guard let value = try? small.parse(UnsafeRawBufferPointer(rebasing: b[m.value])).value else { return nil }
                if RecordLineScanner.key(m, in: b, is: "seq") {
                    guard case .number(let x) = value, x.isIntegerLexeme, let v = x.int64, v >= 0 else { return nil }
                    seq = Int(v)
                } else if RecordLineScanner.key(m, in: b, is: "t") {
                    guard case .number(let x) = value, x.isIntegerLexeme, let v = x.int64 else { return nil }
                    time = v
                } else if RecordLineScanner.key(m, in: b, is: "dir") {
                    guard case .string(let s) = value else { return nil }
                    dir = s
                } else if RecordLineScanner.key(m, in: b, is: "conn") {
                    guard case .string(let s) = value else { return nil }
                    conn = s
                }
            }
            guard let seq, let time, let dir, let conn, let msg else { return nil }
            return ArchiveRecordView(seq: seq, time: time, direction: ArchiveDirection(rawValue: dir), connection: conn,
                                     payload: line.slice[(line.slice.startIndex + msg.lowerBound)..<(line.slice.startIndex + msg.upperBound)], encoding: .message)
        }
    }
}
