import BridgeArchive
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads one string member of a `payload.data` object held as bytes (the fast path's
/// ``MessageFacts/rawData``: valid JSON, an object, no duplicate keys, as
/// `EnvelopeScanner` checked), without parsing the object: the rules read a few
/// strings (`side`, `documentType`, `status`, `reason`, `message`, the selfie blobs).
///
/// It answers `undecided` where the bytes alone do not say what a parse would (a key or
/// the string value with an escape), and the caller then parses the object; otherwise
/// the answer is exactly `JSONObject[key]` as a string: the member's string, not a string,
/// or absent.
enum DataMemberReader {
    enum Answer: Equatable {
        case string(String)
        case notAString
        case absent
        case undecided
    }

    /// `key`'s member of the object whose bytes are `b`.
    static func string(_ key: String, in b: UnsafeRawBufferPointer) -> Answer {
        var want = key
        return want.withUTF8 { k in read(k, in: b) }
    }

    /// ``string(_:in:)-(_,UnsafeRawBufferPointer)`` of bytes held in an array.
    static func string(_ key: String, in raw: ArraySlice<UInt8>) -> Answer {
        raw.withUnsafeBytes { string(key, in: $0) }
    }

    static func read(_ key: UnsafeBufferPointer<UInt8>, in b: UnsafeRawBufferPointer) -> Answer {
        var i = space(b, 0)
        guard i < b.count, b[i] == UInt8(ascii: "{") else { return .undecided }
        i = space(b, i + 1)
        if i < b.count, b[i] == UInt8(ascii: "}") { return .absent }
        while i < b.count {
            guard b[i] == UInt8(ascii: "\""), let keyString = stringEnd(b, i) else { return .undecided }
            let (keyEnd, keyEscaped) = keyString
            let keyRange = (i + 1)..<(keyEnd - 1)
            i = space(b, keyEnd)
            guard i < b.count, b[i] == UInt8(ascii: ":") else { return .undecided }
            let start = space(b, i + 1)
            guard let end = valueEnd(b, start) else { return .undecided }
            if keyEscaped { return .undecided }
            if keyRange.count == key.count, (0..<keyRange.count).allSatisfy({ b[keyRange.lowerBound + $0] == key[$0] }) {
                guard b[start] == UInt8(ascii: "\"") else { return .notAString }
                guard let value = stringEnd(b, start), !value.1 else { return .undecided }
                return .string(String(decoding: UnsafeRawBufferPointer(rebasing: b[(start + 1)..<(end - 1)]), as: UTF8.self))
            }
            i = space(b, end)
            guard i < b.count else { return .undecided }
            if b[i] == UInt8(ascii: "}") { return .absent }
            guard b[i] == UInt8(ascii: ",") else { return .undecided }
            i = space(b, i + 1)
        }
        return .undecided
    }

    static func space(_ b: UnsafeRawBufferPointer, _ start: Int) -> Int {
        var i = start
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
        return i
    }

    /// The offset after the string opening at `start`, and whether it holds an escape.
    /// `memchr` finds the quotes and the backslashes, so a 500 KB base64 image costs a
    /// memory scan, not a byte loop.
    static func stringEnd(_ b: UnsafeRawBufferPointer, _ start: Int) -> (Int, Bool)? {
        let base = b.baseAddress!
        var i = start + 1
        while i < b.count {
            guard let found = memchr(base + i, Int32(UInt8(ascii: "\"")), b.count - i) else { return nil }
            let q = base.distance(to: UnsafeRawPointer(found))
            var backslashes = 0
            while q - backslashes - 1 > start, b[q - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
            if backslashes % 2 == 0 {
                let escaped = q - start - 1 > 0 && memchr(base + start + 1, Int32(UInt8(ascii: "\\")), q - start - 1) != nil
                return (q + 1, escaped)
            }
            i = q + 1
        }
        return nil
    }

    /// The offset after the (valid) value starting at `start`.
    static func valueEnd(_ b: UnsafeRawBufferPointer, _ start: Int) -> Int? {
        guard start < b.count else { return nil }
        switch b[start] {
        case UInt8(ascii: "\""):
            return stringEnd(b, start)?.0
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // The archive reader's walk (64 bytes at a time); the value is valid JSON.
            return RecordLineScanner.containerEnd(b, start, maxDepth: .max)
        default:
            var i = start
            while i < b.count {
                let c = b[i]
                if c == UInt8(ascii: ",") || c == UInt8(ascii: "}") || c == UInt8(ascii: "]") || c == 0x20 || c == 0x09
                    || c == 0x0A || c == 0x0D { break }
                i += 1
            }
            return i > start ? i : nil
        }
    }
}

extension MessageFacts {
    /// `payload.data[key]` when it is a string: read from the bytes on the fast path
    /// (``DataMemberReader``), from the parsed object otherwise or when the bytes do not
    /// decide.
    func dataString(_ key: String) -> String? {
        if let raw = rawData {
            switch DataMemberReader.string(key, in: raw) {
            case .string(let s): return s
            case .notAString, .absent: return nil
            case .undecided: break
            }
        }
        return data?[key]?.stringValue
    }
}
