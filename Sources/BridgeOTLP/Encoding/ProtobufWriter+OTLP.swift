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
        let kv = keyValue(field, key)
        let v = begin(2)
        stringField(1, value)
        end(v)
        end(kv)
    }

    /// A `KeyValue` with an int value.
    mutating func attribute(_ field: Int, _ key: OTLPAttribute, _ value: Int) {
        let kv = keyValue(field, key)
        let v = begin(2)
        varintField(3, UInt64(bitPattern: Int64(value)))
        end(v)
        end(kv)
    }

    /// A `KeyValue` with a bool value.
    mutating func attribute(_ field: Int, _ key: OTLPAttribute, _ value: Bool) {
        let kv = keyValue(field, key)
        let v = begin(2)
        varintField(2, value ? 1 : 0)
        end(v)
        end(kv)
    }

    /// A `KeyValue` with an array of ints.
    mutating func attribute(_ field: Int, _ key: OTLPAttribute, _ values: [Int]) {
        let kv = keyValue(field, key)
        let v = begin(2)
        let array = begin(5)
        for value in values {
            let item = begin(1)
            varintField(3, UInt64(bitPattern: Int64(value)))
            end(item)
        }
        end(array)
        end(v)
        end(kv)
    }

    /// A `KeyValue` with an array of strings.
    mutating func attribute(_ field: Int, _ key: OTLPAttribute, _ values: [String]) {
        let kv = keyValue(field, key)
        let v = begin(2)
        let array = begin(5)
        for value in values {
            let item = begin(1)
            stringField(1, value)
            end(item)
        }
        end(array)
        end(v)
        end(kv)
    }

    private mutating func keyValue(_ field: Int, _ key: OTLPAttribute) -> Int {
        let kv = begin(field)
        if !key.rawValue.isEmpty { stringField(1, key.rawValue) }
        return kv
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
