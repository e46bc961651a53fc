import SwiftProtobuf

/// Builds the body of an `ExportTraceServiceRequest` from spans encoded one by one.
///
/// The generated code (swift-protobuf) computes the size of every nested message again
/// at each level it is nested in; spans sit four levels deep in a request (request,
/// ResourceSpans, ScopeSpans, Span) and carry events, attributes and arrays below, so
/// encoding the request as one message cost about twice encoding each span alone. Each
/// span, resource and scope is encoded by the generated code; only the three framing
/// levels above them are written here, as protobuf's wire format defines them (field
/// tag, then the length as a varint, then the bytes), and the receiver's official
/// classes decode the result (`OTLPExportTests`).
struct OTLPRequestEncoder {
    /// One trace's pieces, encoded.
    struct Trace {
        var resource: [UInt8]
        var scope: [UInt8]
        var spans: [[UInt8]]
    }

    /// Encodes a trace's resource, scope and spans (the expensive part, done once per span).
    static func encode(_ rs: Opentelemetry_Proto_Trace_V1_ResourceSpans) throws -> Trace {
        Trace(resource: try rs.resource.serializedBytes(),
              scope: try rs.scopeSpans.first?.scope.serializedBytes() ?? [],
              spans: try rs.scopeSpans.flatMap(\.spans).map { try $0.serializedBytes() })
    }

    /// `ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }` with
    /// `ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }`
    /// and `ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }`.
    static func request(_ traces: [Trace]) -> [UInt8] {
        var out: [UInt8] = []
        for t in traces {
            var scopeSpansLength = field(t.scope.count)
            for s in t.spans { scopeSpansLength += field(s.count) }
            let resourceSpansLength = field(t.resource.count) + field(scopeSpansLength)
            out.reserveCapacity(out.count + field(resourceSpansLength))
            header(1, resourceSpansLength, into: &out)
            header(1, t.resource.count, into: &out)
            out.append(contentsOf: t.resource)
            header(2, scopeSpansLength, into: &out)
            header(1, t.scope.count, into: &out)
            out.append(contentsOf: t.scope)
            for s in t.spans {
                header(2, s.count, into: &out)
                out.append(contentsOf: s)
            }
        }
        return out
    }

    /// The size of a length-delimited field of `length` bytes (tag, varint, bytes).
    static func field(_ length: Int) -> Int { 1 + varintSize(length) + length }

    static func varintSize(_ n: Int) -> Int {
        var v = UInt64(n), size = 1
        while v >= 0x80 { v >>= 7; size += 1 }
        return size
    }

    /// The tag of field `number` (below 16) with wire type 2 (length-delimited), then the length.
    static func header(_ number: UInt8, _ length: Int, into out: inout [UInt8]) {
        out.append(number << 3 | 2)
        var v = UInt64(length)
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }
}
