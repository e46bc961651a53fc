import BridgeJSON

/// A request's `payload.data`, kept while the request is open and after its success, for
/// `response-not-consumed` ("re-sent with the same data"). Two requests have the same
/// data when the canonical texts of their data objects (sorted keys, compact) are equal,
/// and both have none when neither carries an object.
///
/// On the fast path the data is kept as its bytes (a copy: the message may be a slice
/// of the archive reader's reused buffer; nothing parsed): two with the same bytes are
/// the same data without a look; only data that differ in bytes are compared by their
/// canonical texts, parsed then. So the answer
/// is the one the analyzer gave when it kept the canonical text of every request, at
/// the cost of a parse only when a request is re-sent with other bytes.
struct RequestData {
    enum Storage {
        case none
        /// The bytes of the data object (valid, no duplicate keys: ``EnvelopeScanner``).
        /// An array, not a slice: one reference, so that an ``OpenRequest`` stays within
        /// 128 bytes (copied inline, not by a `memcpy` call).
        case raw([UInt8])
        case decoded(JSONObject)
    }

    var storage: Storage

    /// The data of a message (``MessageFacts/rawData`` or ``MessageFacts/decodedData``):
    /// the two fields, not the facts, which a call would copy whole.
    init(rawData: UnsafeRawBufferPointer?, decodedData: JSONObject?) {
        if let raw = rawData {
            storage = .raw(Array(raw))
        } else if let decoded = decodedData {
            storage = .decoded(decoded)
        } else {
            storage = .none
        }
    }

    /// The canonical text of the data object ("" without one).
    var canonical: String {
        switch storage {
        case .none:
            return ""
        case .raw(let bytes):
            guard case .object(let o)? = try? JSONParser().parse(bytes: bytes[...]).value else { return "" }
            return SessionAnalyzer.canonical(o)
        case .decoded(let o):
            return SessionAnalyzer.canonical(o)
        }
    }

    /// Whether `other` carries the same data.
    func same(as other: RequestData) -> Bool {
        switch (storage, other.storage) {
        case (.none, .none): return true
        case (.raw(let a), .raw(let b)) where a == b: return true
        default: return canonical == other.canonical
        }
    }
}
