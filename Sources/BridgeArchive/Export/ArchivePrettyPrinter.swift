/// Renders archive items as one readable line each (`bridgescope cat --format pretty`):
///
/// ```
/// # session tap:- on host1, started 2023-11-14T22:13:20.000Z, format 1, bridgescope 0.1.0
/// #1     22:13:20.123456  w2h c1    request   camera.document.capture  req-1  (187 B msg)
/// #2     22:13:20.523000  --  c1    gap h2w 1200 bytes
/// # end: 1 records, 1 events, 187 bytes, 0 drops, 1 gaps (1200 bytes), 0 errors
/// ```
struct ArchivePrettyPrinter: Sendable {
    /// Creates a printer.
    public init() {}

    /// The header line.
    public func render(_ h: ArchiveHeader) -> String {
        "# session \(h.source) on \(h.host ?? "unknown host"), started \(Self.isoTime(h.startTime)), format \(h.formatVersion), bridgescope \(h.toolVersion)"
            + (h.filter.map { ", filter \($0)" } ?? "")
    }

    /// A record line.
    public func render(_ r: ArchiveRecord) -> String {
        let s = EnvelopeSummary(r.payload)
        var parts = [pad("#\(r.seq)", 7), Self.clockTime(r.time), pad(r.direction.rawValue, 3), pad(r.connection, 6)]
        if s.type != nil || s.action != nil {
            parts.append(pad(s.type ?? "?", 9))
            parts.append(pad(s.action ?? "?", 24))
            if let status = s.status { parts.append(status) }
            if let id = s.correlationId { parts.append(id) }
        } else {
            parts.append("(not an envelope)")
        }
        parts.append("(\(r.payload.count) B \(r.encoding))")
        return parts.joined(separator: " ")
    }

    /// An event line.
    public func render(_ e: ArchiveEvent) -> String {
        var parts = [pad("#\(e.seq)", 7), Self.clockTime(e.time), "-- ", pad(e.connection ?? "", 6), e.kind.rawValue]
        if let d = e.direction { parts.append(d.rawValue) }
        if let b = e.bytes { parts.append("\(b) bytes") }
        if let c = e.count { parts.append("\(c) packets") }
        if let l = e.line { parts.append("line \(l)") }
        if let r = e.reason { parts.append(r) }
        return parts.joined(separator: " ")
    }

    /// The trailer line.
    public func render(_ t: ArchiveTrailer) -> String {
        "# end \(Self.isoTime(t.endTime)): \(t.records) records, \(t.events) events, \(t.bytes) bytes, \(t.drops) drops, \(t.gaps) gaps (\(t.gapBytes) bytes), \(t.errors) errors"
    }

    private func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }

    /// `HH:MM:SS.micro` (UTC) of epoch nanoseconds.
    static func clockTime(_ ns: Int64) -> String {
        let (secs, frac) = ns.quotientAndRemainder(dividingBy: 1_000_000_000)
        let f = frac < 0 ? frac + 1_000_000_000 : frac
        let s = frac < 0 ? secs - 1 : secs
        let day = ((s % 86_400) + 86_400) % 86_400
        return "\(two(day / 3600)):\(two(day / 60 % 60)):\(two(day % 60)).\(digits(f / 1000, 6))"
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` of epoch nanoseconds (proleptic Gregorian, UTC).
    static func isoTime(_ ns: Int64) -> String {
        let secs = ns >= 0 ? ns / 1_000_000_000 : (ns - 999_999_999) / 1_000_000_000
        let ms = (ns - secs * 1_000_000_000) / 1_000_000
        let days = secs >= 0 ? secs / 86_400 : (secs - 86_399) / 86_400
        let rem = secs - days * 86_400
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return "\(y)-\(two(m))-\(two(d))T\(two(rem / 3600)):\(two(rem / 60 % 60)):\(two(rem % 60)).\(digits(ms, 3))Z"
    }

    private static func two(_ v: Int64) -> String { digits(v, 2) }

    private static func digits(_ v: Int64, _ n: Int) -> String {
        let s = String(v)
        return s.count >= n ? s : String(repeating: "0", count: n - s.count) + s
    }
}
