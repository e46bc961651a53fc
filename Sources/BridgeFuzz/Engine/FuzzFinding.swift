import BridgeJSON

/// A failed oracle with the case that shows it, minimized when possible.
public struct FuzzFinding: Sendable {
    /// The violation (of the minimized case when minimized).
    public var violation: Violation
    /// The case.
    public var input: FuzzInput
    /// Steps and bytes before minimization.
    var originalSteps: Int
    /// Bytes before minimization.
    var originalBytes: Int
    /// Whether the case was minimized.
    public var minimized: Bool
    /// Executions done when it was found.
    public var execs: UInt64
    /// Seconds from the start of the run.
    public var seconds: Double

    /// Creates a finding.
    public init(violation: Violation, input: FuzzInput, originalSteps: Int, originalBytes: Int, minimized: Bool,
                execs: UInt64, seconds: Double) {
        self.violation = violation
        self.input = input
        self.originalSteps = originalSteps
        self.originalBytes = originalBytes
        self.minimized = minimized
        self.execs = execs
        self.seconds = seconds
    }

    /// The regression file's name: `<oracle>-<12 hex digits of the signature's hash>.jsonl`.
    public var fileName: String {
        "\(violation.oracle.rawValue)-\(FuzzFinding.hex(FuzzFinding.stableHash(violation.key))).jsonl"
    }

    /// FNV-1a over UTF-8, 48 bits: stable across runs and platforms (unlike `Hasher`).
    static func stableHash(_ s: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        return h & 0xFFFF_FFFF_FFFF
    }

    static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, 12 - s.count)) + s
    }

    /// The case file: a header saying how to reproduce, then the steps.
    public func caseFile(path: String, target: String, scenario: JSONValue?, seed: UInt64) -> FuzzCase {
        let header = JSONObject([
            .init(key: "oracle", value: .string(violation.oracle.rawValue)),
            .init(key: "signature", value: .string(violation.signature)),
            .init(key: "message", value: .string(String(violation.message.prefix(2000)))),
            .init(key: "rule", value: .string(violation.protocolRule)),
            .init(key: "reproduce", value: .string("bridgescope fuzz --reproduce \(path)")),
            .init(key: "target", value: .string(target)),
            .init(key: "seed", value: .string(String(seed))),
            .init(key: "minimized", value: .bool(minimized)),
            .init(key: "scenario", value: scenario ?? .null),
        ])
        return FuzzCase(header: header, input: input)
    }
}
