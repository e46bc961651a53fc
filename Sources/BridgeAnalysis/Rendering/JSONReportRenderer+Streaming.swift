import BridgeJSON

extension JSONReportRenderer {
    /// The report of ``render(_:)``, byte for byte, handed to `sink` as it is written, in
    /// pieces of about `chunkBytes` (at least one; the last may be shorter). No session
    /// is built whole: each finding and each connection (with its steps) is built and
    /// written in turn, so memory stays that of the batch plus one chunk, whatever the
    /// report's size.
    ///
    /// - Throws: what `sink` throws; the report then stops there.
    public func write<E: Error>(_ batch: AnalysisBatch, chunkBytes: Int = 1 << 16,
                                to sink: ([UInt8]) throws(E) -> Void) throws(E) {
        var s = PrettyJSONStream()
        s.bytes.reserveCapacity(chunkBytes + 4_096)
        func flush() throws(E) {
            guard s.bytes.count >= chunkBytes else { return }
            try sink(s.bytes)
            s.bytes.removeAll(keepingCapacity: true)
        }
        /// An array of objects whose own line is at `indent`, one element at a time.
        func objects<T>(_ items: [T], indent: Int, _ element: (T) throws(E) -> Void) throws(E) {
            guard !items.isEmpty else { return s.raw("[]") }
            s.open("[")
            for (i, item) in items.enumerated() {
                s.element(indent: indent)
                try element(item)
                s.end(last: i == items.count - 1)
                try flush()
            }
            s.close("]", indent: indent)
        }
        s.open("{")
        for (key, value) in head(batch) { s.member(key, value, indent: 0) }
        s.key("sessions", indent: 0)
        try objects(batch.reports, indent: 2) { r throws(E) in
            // A session, at 4: its findings and connections one by one.
            s.open("{")
            for (key, value) in sessionHead(r) { s.member(key, value, indent: 4) }
            s.key("findings", indent: 4)
            try objects(r.findings, indent: 6) { s.value(finding($0), indent: 8) }
            s.end(last: false)
            s.member("findingsOmitted", num(r.findingsOmitted), indent: 4)
            s.member("latency", .array(r.latency.map(latency)), indent: 4)
            s.key("connections", indent: 4)
            try objects(r.connections, indent: 6) { write(connection: $0, indent: 8, into: &s) }
            s.end(last: true)
            s.close("}", indent: 4)
        }
        s.end(last: false)
        let last = tail(batch)
        for (i, (key, value)) in last.enumerated() { s.member(key, value, indent: 0, last: i == last.count - 1) }
        s.close("}", indent: 0)
        s.raw("\n")
        try sink(s.bytes)
    }
}
