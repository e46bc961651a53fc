import BridgeJSON
import Foundation

/// ``Oracle/jsonAgreement``: BridgeJSON and Foundation's `JSONSerialization` (with
/// `.fragmentsAllowed`) must agree on whether a message is JSON, except for the known,
/// documented differences below (docs/FUZZING.md §"Known differences", measured on
/// swift-corelibs-foundation with Swift 6.3.1). A disagreement none of them explains is a
/// finding in one parser or the other.
public enum JSONAgreement {
    /// A documented reason for the two parsers to disagree.
    public struct KnownDifference: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// Short name.
        public let rawValue: String
        /// Wraps a name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The name.
        public var description: String { rawValue }

        /// Foundation accepts a trailing comma in arrays and objects; RFC 8259 does not.
        static let trailingComma = KnownDifference(rawValue: "trailing-comma")
        /// BridgeJSON stops at depth 64 (PROTOCOL.md §6); Foundation at 512.
        static let nestingLimit = KnownDifference(rawValue: "nesting-limit")
        /// BridgeJSON's other limits (number lexeme over 1,024 bytes, string, member count).
        static let bridgeLimits = KnownDifference(rawValue: "bridgejson-limits")
        /// Foundation rejects numbers that overflow a Double (`1e309`); BridgeJSON keeps any
        /// lexeme (huge integers and underflowing numbers are accepted by both).
        static let numberRange = KnownDifference(rawValue: "number-range")
        /// Foundation guesses UTF-16/UTF-32 from NUL bytes at the start and skips a
        /// byte-order mark; BridgeJSON reads UTF-8 only and rejects a BOM.
        static let encodingDetection = KnownDifference(rawValue: "encoding-detection")

        /// Every known difference.
        public static let all: [KnownDifference] = [
            .trailingComma, .nestingLimit, .bridgeLimits, .numberRange, .encodingDetection,
        ]
    }

    /// What each parser said about one input.
    public struct Verdict: Sendable, Hashable {
        /// BridgeJSON's error, nil when it accepted.
        public var bridge: JSONError?
        /// Whether Foundation accepted.
        public var foundationAccepted: Bool
        /// The known difference that explains a disagreement, if any.
        public var explanation: KnownDifference?
        /// Whether the two agree.
        public var agree: Bool { (bridge == nil) == foundationAccepted }
    }

    /// Runs both parsers on `bytes`.
    public static func verdict(_ bytes: [UInt8]) -> Verdict {
        let bridgeError: JSONError?
        do { _ = try JSONParser().parse(bytes); bridgeError = nil } catch { bridgeError = error }
        let foundation = (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil
        var v = Verdict(bridge: bridgeError, foundationAccepted: foundation)
        if !v.agree { v.explanation = explain(bytes, bridge: bridgeError) }
        return v
    }

    /// A violation when the parsers disagree for no known reason.
    public static func check(_ bytes: [UInt8]) -> Violation? {
        let v = verdict(bytes)
        guard !v.agree, v.explanation == nil else { return nil }
        if let e = v.bridge {
            return Violation(.jsonAgreement, signature: "foundation-only \(e.code)",
                             "JSONSerialization accepts what BridgeJSON rejects (\(e)): \(preview(bytes))")
        }
        return Violation(.jsonAgreement, signature: "bridgejson-only",
                         "BridgeJSON accepts what JSONSerialization rejects: \(preview(bytes))")
    }

    static func explain(_ bytes: [UInt8], bridge: JSONError?) -> KnownDifference? {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) || bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE])
            || bytes.prefix(4).contains(0) {
            return .encodingDetection
        }
        if let e = bridge {
            switch e.code {
            case .tooDeep: return .nestingLimit
            case .numberTooLong, .stringTooLong, .tooManyMembers, .inputTooLarge: return .bridgeLimits
            case .unexpectedByte where e.reason.contains("trailing comma"): return .trailingComma
            default: return nil
            }
        }
        // BridgeJSON accepted, Foundation refused.
        if hasOutOfRangeNumber(bytes) { return .numberRange }
        return nil
    }

    /// Whether the text holds a number lexeme that overflows a Double.
    static func hasOutOfRangeNumber(_ bytes: [UInt8]) -> Bool {
        guard let value = try? JSONParser().parse(bytes).value else { return false }
        var stack = [value]
        while let v = stack.popLast() {
            switch v {
            case .number(let n):
                if !n.double.isFinite { return true }
            case .array(let a): stack += a
            case .object(let o): stack += o.members.map(\.value)
            default: break
            }
        }
        return false
    }

    static func preview(_ bytes: [UInt8]) -> String {
        let s = String(decoding: bytes.prefix(160), as: UTF8.self)
        return bytes.count > 160 ? s + "… (\(bytes.count) bytes)" : s
    }
}
