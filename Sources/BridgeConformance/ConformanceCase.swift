import BridgeFuzz
import BridgeJSON

/// One numbered, deterministic case of the conformance suite (docs/CONFORMANCE.md): a
/// fixed exchange sent to a host, judged by the protocol model.
public struct ConformanceCase: Sendable, Hashable {
    /// What kind of verdict the case can give.
    public enum Kind: Sendable, Hashable {
        /// Judged by the model: pass, pass with a noted legal choice, or fail.
        case judged
        /// Run and reported, never failed on its answers (a crash or hang still fails).
        case informational
    }

    /// The number, e.g. `2.4`: the PROTOCOL.md section first.
    public var id: String
    /// The PROTOCOL.md sections it exercises, e.g. `§2, §7`.
    public var section: String
    /// What it checks, in a few words.
    public var title: String
    /// What a host must do, in a sentence (docs/CONFORMANCE.md lists it).
    public var expectation: String
    /// The messages sent, with their delays.
    public var input: FuzzInput
    /// Judged or informational.
    public var kind: Kind = .judged

    /// Creates a case from envelope lines sent `gapMs` apart.
    init(_ id: String, _ section: String, _ title: String, _ expectation: String, kind: Kind = .judged,
         gapMs: Int64 = 0, _ lines: [String]) {
        self.id = id
        self.section = section
        self.title = title
        self.expectation = expectation
        self.kind = kind
        self.input = FuzzInput(lines.enumerated().map { FuzzStep(delayMs: $0.offset == 0 ? 0 : gapMs, message: Array($0.element.utf8)) })
    }

    /// Creates a case from raw byte messages.
    init(_ id: String, _ section: String, _ title: String, _ expectation: String, kind: Kind = .judged, bytes: [[UInt8]]) {
        self.id = id
        self.section = section
        self.title = title
        self.expectation = expectation
        self.kind = kind
        self.input = FuzzInput(bytes.map { FuzzStep(message: $0) })
    }

    /// Whether `pattern` selects this case: `*` matches any run of characters, and a
    /// pattern without `*` matches the id and every case under it (`2` selects `2.1`…).
    public func matches(_ pattern: String) -> Bool {
        if !pattern.contains("*") { return id == pattern || id.hasPrefix(pattern + ".") }
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        var rest = Substring(id)
        for (i, p) in parts.enumerated() {
            if i == 0 {
                guard rest.hasPrefix(p) else { return false }
                rest = rest.dropFirst(p.count)
            } else if i == parts.count - 1 {
                return p.isEmpty || rest.hasSuffix(p)
            } else if let r = rest.range(of: p) {
                rest = rest[r.upperBound...]
            } else {
                return false
            }
        }
        return rest.isEmpty
    }
}
