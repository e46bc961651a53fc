import BridgeJSON
import BridgeModel
import BridgeProtocol

/// What the checker notes about each message apart from the model: the host's output
/// rules (``Oracle/hostOutputRules``) and the behaviour features that guide the corpus.
extension TraceChecker {
    /// Findings on a host's output that PROTOCOL.md §7 leaves open (unknown members,
    /// unknown error codes, a timestamp in seconds): not judged against another host.
    static let openOutputRules: Set<RuleID> = [.unknownField, RuleID(rawValue: "BRG023"), RuleID(rawValue: "BRG016")]

    func sentFeatures(_ bytes: [UInt8], _ features: inout FeatureSink) {
        let d = decode(bytes, .webToHost)
        for f in d.findings { features.add("in-rule", f.rule.rawValue) }
        if let e = d.envelope, d.isValid, e.type == .request {
            features.add("in-request", actionClass(e.payload.action.rawValue))
        } else if d.partial.type == .request, let id = d.partial.correlationId, !id.isEmpty {
            features.add("in", "invalid-request")
        } else {
            features.add("in", d.envelope == nil ? "undecodable" : "not-a-request")
        }
    }

    func outputViolations(_ bytes: [UInt8], _ features: inout FeatureSink) -> [Violation] {
        var out: [Violation] = []
        let d = decode(bytes, .hostToWeb)
        // Lenient: only error findings the protocol fixes (not this project's warnings,
        // notes, unknown members or codes, §7) count against a host's output.
        // A response may echo a malformed request's action (§4: "with the request's action
        // when that is a non-empty string"), so an action that is not a dotted name is
        // judged on requests' answers by the model, not here.
        let echo: Set<RuleID> = d.partial.type == .response ? [RuleID(rawValue: "BRG021")] : []
        let judged = strict ? d.findings
            : d.findings.filter { $0.severity == .error && !Self.openOutputRules.contains($0.rule) && !echo.contains($0.rule) }
        if !judged.isEmpty || d.envelope == nil {
            let rules = Set(judged.map(\.rule.rawValue)).sorted().joined(separator: ",")
            out.append(Violation(.hostOutputRules, signature: "rules \(rules)",
                                 "the host sent a message that breaks the rules: \(judged.map(\.description).joined(separator: "; ")) — \(preview(bytes))"))
        }
        if bytes.contains(0x0A) {
            out.append(Violation(.hostOutputRules, signature: "raw-newline", "the host sent a message holding a raw newline: \(preview(bytes))"))
        }
        guard let e = d.envelope else { return out }
        if e.type == .response {
            let status = e.payload.status ?? Status(rawValue: "")
            let code = e.payload.error?.code
            features.addSequenced("out", "\(actionClass(e.payload.action.rawValue)) \(status) \(code?.rawValue ?? "")")
            if code == .busy { features.add("busy", e.payload.action.rawValue) }
        } else {
            features.addSequenced("out-event", e.payload.action.rawValue)
        }
        return out
    }

    func preview(_ bytes: [UInt8]) -> String { ReportText.preview(bytes) }

    func quote(_ s: String) -> String { ReportText.quote(s) }
}
