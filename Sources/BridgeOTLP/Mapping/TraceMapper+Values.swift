import Foundation

extension TraceMapper {
    static func kv(_ key: OTLPAttribute, _ value: String) -> KeyValue {
        var kv = KeyValue()
        kv.key = key.rawValue
        kv.value.stringValue = value
        return kv
    }

    static func kv(_ key: OTLPAttribute, _ value: Int) -> KeyValue {
        var kv = KeyValue()
        kv.key = key.rawValue
        kv.value.intValue = Int64(value)
        return kv
    }

    static func kv(_ key: OTLPAttribute, _ value: Bool) -> KeyValue {
        var kv = KeyValue()
        kv.key = key.rawValue
        kv.value.boolValue = value
        return kv
    }

    static func kv(_ key: OTLPAttribute, _ values: [Int]) -> KeyValue {
        var kv = KeyValue()
        kv.key = key.rawValue
        kv.value.arrayValue.values = values.map { v in
            var a = Opentelemetry_Proto_Common_V1_AnyValue()
            a.intValue = Int64(v)
            return a
        }
        return kv
    }

    static func kv(_ key: OTLPAttribute, _ values: [String]) -> KeyValue {
        var kv = KeyValue()
        kv.key = key.rawValue
        kv.value.arrayValue.values = values.map { v in
            var a = Opentelemetry_Proto_Common_V1_AnyValue()
            a.stringValue = v
            return a
        }
        return kv
    }
}
