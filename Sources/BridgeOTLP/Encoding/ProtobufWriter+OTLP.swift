/// The OTLP messages bridgescope writes (opentelemetry-proto v1.11.0, `common.proto` and
/// `trace.proto`), field numbers as there; see ``ProtobufWriter`` for why by hand.
extension ProtobufWriter {
    /// `Span` fields.
    enum SpanField {
        static let traceID = 1, spanID = 2, parentSpanID = 4, name = 5, kind = 6
        static let start = 7, end = 8, attributes = 9, events = 11, status = 15
    }

    /// `Span.SpanKind` values.
    enum SpanKind {
        static let `internal`: UInt64 = 1, client: UInt64 = 3
    }

    /// `Status.StatusCode.STATUS_CODE_ERROR`.
    static let statusError: UInt64 = 2

    /// A `KeyValue` with a string value in field `field` (attributes of a span: 9, of an
    /// event: 3, of a resource: 1).
    mutating func attribute(_ field: Int, _ key: OTLPAttribute, _ value: String) {
        attribute(field, key) { $0.stringField(1, value) }
    }

    /// A `KeyValue` with an int value.
    mutating func attribute(_ field: Int, _ key: OTLPAttribute, _ value: Int) {
        attribute(field, key) { $0.varintField(3, UInt64(bitPattern: Int64(value))) }
    }

    /// A `KeyValue` with a bool value.
    mutating func attribute(_ field: Int, _ key: OTLPAttribute, _ value: Bool) {
        attribute(field, key) { $0.varintField(2, value ? 1 : 0) }
    }

    /// A `KeyValue` with an array of ints.
    mutating func attribute(_ field: Int, _ key: OTLPAttribute, _ values: [Int]) {
        attribute(field, key, array: values) { $0.varintField(3, UInt64(bitPattern: Int64($1))) }
    }

    /// A `KeyValue` with an array of strings.
    mutating func attribute(_ field: Int, _ key: OTLPAttribute, _ values: [String]) {
        attribute(field, key, array: values) { $0.stringField(1, $1) }
    }

    /// A `KeyValue` whose `AnyValue` (field 2) `value` writes.
    private mutating func attribute(_ field: Int, _ key: OTLPAttribute, value: (inout ProtobufWriter) -> Void) {
        let kv = begin(field)
        if !key.rawValue.isEmpty { stringField(1, key.rawValue) }
        let v = begin(2)
        value(&self)
        end(v)
        end(kv)
    }

    /// A `KeyValue` with an `ArrayValue` (field 5) of `values`, each an `AnyValue` that
    /// `item` writes.
    private mutating func attribute<T>(_ field: Int, _ key: OTLPAttribute, array values: [T],
                                       item: (inout ProtobufWriter, T) -> Void) {
        attribute(field, key) { w in
            let array = w.begin(5)
            for value in values {
                let one = w.begin(1)
                item(&w, value)
                w.end(one)
            }
            w.end(array)
        }
    }

    /// A span's `Status` (field 15): code, and the message when there is one.
    mutating func errorStatus(message: String) {
        let s = begin(SpanField.status)
        if !message.isEmpty { stringField(2, message) }
        varintField(3, Self.statusError)
        end(s)
    }

    /// A span's identity and times: trace id, span id, parent, name, kind, start, end
    /// (fields 1 to 8, as the generated code writes them).
    mutating func spanHead(trace: [UInt8], span: [UInt8], parent: [UInt8], name: String, kind: UInt64,
                           start: Int64, end: Int64) {
        bytesField(SpanField.traceID, trace)
        bytesField(SpanField.spanID, span)
        bytesField(SpanField.parentSpanID, parent)
        if !name.isEmpty { stringField(SpanField.name, name) }
        if kind != 0 { varintField(SpanField.kind, kind) }
        fixed64Field(SpanField.start, UInt64(clamping: start))
        fixed64Field(SpanField.end, UInt64(clamping: end))
    }

    /// Starts a `Span.Event` in field `field` (11 in a span): time and name; attributes
    /// follow in field 3; ``end(_:)`` closes it.
    mutating func beginEvent(name: String, time: Int64, field: Int = SpanField.events) -> Int {
        let e = begin(field)
        fixed64Field(1, UInt64(clamping: time))
        if !name.isEmpty { stringField(2, name) }
        return e
    }
}
