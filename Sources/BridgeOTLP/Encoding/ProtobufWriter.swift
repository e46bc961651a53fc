/// Protobuf's wire format written by hand (https://protobuf.dev/programming-guides/encoding/):
/// a field is its tag (field number << 3 | wire type) as a varint, then a varint, 8
/// little-endian bytes, or a length and that many bytes.
///
/// Why not the generated messages: swift-protobuf builds a heap object per message
/// (every span, event, attribute and value) and computes the size of every nested
/// message again at each level it is nested in. A long journey's root span carries tens
/// of thousands of events of three to five attributes each, so that was most of the
/// export's time (docs/PERFORMANCE.md, "OTLP export"). Here a nested message is written
/// in place: ``begin(_:)`` leaves one byte for its length, ``end(_:)`` writes the length
/// there and, for a message of 128 bytes or more, moves the message right by the extra
/// length bytes (once per message, so a span of N bytes costs at most N more moves per
/// nesting level above 127 bytes).
///
/// Fields are written in the order and with the omissions swift-protobuf uses (proto3:
/// scalars at their default value are left out, a set oneof member is always written),
/// so the bytes are the ones the generated code would write (`JourneySpansTests`).
struct ProtobufWriter {
    /// The bytes written so far.
    var bytes: [UInt8] = []

    /// Wire types.
    static let varintType = 0, fixed64Type = 1, lengthType = 2

    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// Bytes written so far.
    var count: Int { bytes.count }

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func tag(_ field: Int, _ wireType: Int) {
        varint(UInt64(field << 3 | wireType))
    }

    /// A varint field (uint64, int64 as its two's complement, enum, bool), written even at 0.
    mutating func varintField(_ field: Int, _ value: UInt64) {
        tag(field, Self.varintType)
        varint(value)
    }

    /// A fixed64 field, left out at 0 (proto3).
    mutating func fixed64Field(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, Self.fixed64Type)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A string field, written even when empty (oneof members; callers leave out empty
    /// plain fields themselves).
    mutating func stringField(_ field: Int, _ value: String) {
        tag(field, Self.lengthType)
        var s = value
        s.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// A bytes field, left out when empty (proto3).
    mutating func bytesField(_ field: Int, _ value: [UInt8]) {
        guard !value.isEmpty else { return }
        tag(field, Self.lengthType)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// Already encoded message bytes as a length-delimited field.
    mutating func messageField(_ field: Int, encoded: [UInt8]) {
        tag(field, Self.lengthType)
        varint(UInt64(encoded.count))
        bytes.append(contentsOf: encoded)
    }

    /// Starts a nested message in field `field`; returns the mark ``end(_:)`` takes.
    mutating func begin(_ field: Int) -> Int {
        tag(field, Self.lengthType)
        bytes.append(0)
        return bytes.count
    }

    /// Ends the nested message started at `mark`: writes its length before it.
    mutating func end(_ mark: Int) {
        let length = bytes.count - mark
        if length < 0x80 {
            bytes[mark - 1] = UInt8(length)
            return
        }
        let extra = Self.varintSize(length) - 1
        bytes.insert(contentsOf: repeatElement(0, count: extra), at: mark)
        var v = UInt64(length), i = mark - 1
        while v >= 0x80 {
            bytes[i] = UInt8(truncatingIfNeeded: v) | 0x80
            v >>= 7
            i += 1
        }
        bytes[i] = UInt8(v)
    }

    /// Bytes a varint of `n` takes.
    static func varintSize(_ n: Int) -> Int {
        var v = UInt64(n), size = 1
        while v >= 0x80 {
            v >>= 7
            size += 1
        }
        return size
    }
}
