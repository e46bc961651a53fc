import BridgeModel
import BridgeHost
import BridgeProtocol
import BridgeTransport
import Foundation

/// What a kept host process may still answer: the ids its earlier cases sent. A late
/// answer to one is a leftover, dropped from the case it lands in; a case that sends an
/// id an earlier case sent and never saw answered first waits for it
/// (``StdioTarget/owedGraceMs``), since the two answers could not be told apart.
extension StdioTarget {
    /// An id an earlier case of the process sent: when that case ended, how many of its
    /// requests under the id still had no final answer, and the typed slot they ask for.
    struct EarlierId: Sendable {
        var ended: ContinuousClock.Instant
        var pending: Int
        var slot: SlotKind?
        /// Whether an answer is still owed.
        var owed: Bool { pending > 0 }
    }

    /// How long after its case an owed capture counts as possibly holding its slot.
    static let slotHoldMs: Int64 = 2_000

    /// The slots that owed captures of earlier cases may still hold.
    static func slotsMaybeHeld(_ stale: [String: EarlierId], now: ContinuousClock.Instant) -> Set<SlotKind> {
        Set(stale.values.filter { $0.owed && now - $0.ended < .milliseconds(slotHoldMs) }.compactMap(\.slot))
    }

    /// Every correlation id `input` may send: the decoded one of each line and any
    /// `"correlationId"` string a lenient host could read.
    static func idsSent(by input: FuzzInput) -> Set<String> {
        var ids: Set<String> = []
        for step in input.steps {
            guard case .message(let bytes) = step.kind else { continue }
            for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true) {
                ids.formUnion(LooseIds.scan(Array(line)))
            }
        }
        return ids
    }

    /// Before a case that sends some of the ids `p` still owes: waits, for what is left
    /// of each one's grace, for their late answers (read and dropped, with every other
    /// leftover), then forgets them: from here on they are this case's ids.
    static func takeOver(_ ids: Set<String>, from stale: inout [String: EarlierId],
                         in p: ChildProcess, graceMs: Int64) {
        var left = ids.filter { stale[$0]?.owed == true }
        defer { for id in ids { stale[id] = nil } }
        guard !left.isEmpty else { return }
        let until = left.compactMap { stale[$0]?.ended }.max()! + .milliseconds(graceMs)
        let decoder = EnvelopeDecoder()
        while true {
            for line in p.takeLines() {
                let d = decoder.decode(line, direction: .hostToWeb)
                if d.partial.type == .response, let id = d.partial.correlationId { left.remove(id) }
            }
            if left.isEmpty || p.status() != nil || ContinuousClock.now >= until { break }
            let ms = max(1, min(10, (until - ContinuousClock.now) / .milliseconds(1)))
            if !p.pump(timeoutMs: Int32(ms)) && p.status() != nil { break }
        }
    }
}

extension StdioTarget {
    /// Longest id ``freshen(_:suffix:)`` rewrites: longer ones, and ids with escapes or
    /// characters beyond `[A-Za-z0-9_.:-]`, are what a case tests, so they go as they are.
    static let maxFreshenedIdBytes = 32

    /// `line` with `suffix` appended to every plain `"correlationId"` string value
    /// (1 to ``maxFreshenedIdBytes`` bytes of `[A-Za-z0-9_.:-]`): the second and later
    /// cases of a host process send ids no earlier case sent, so an answer that comes
    /// late is told apart exactly. The first case of a process (and every confirmation
    /// run) sends its input unchanged.
    static func freshen(_ line: [UInt8], suffix: [UInt8]) -> [UInt8] {
        let key = Array(#""correlationId""#.utf8)
        var out: [UInt8] = []
        var copied = 0
        var i = 0
        while i + key.count < line.count {
            guard line[i] == 0x22, line[i..<(i + key.count)].elementsEqual(key) else { i += 1; continue }
            var j = i + key.count
            while j < line.count, [0x20, 0x09, 0x0A, 0x0D].contains(line[j]) { j += 1 }
            guard j < line.count, line[j] == UInt8(ascii: ":") else { i = j; continue }
            j += 1
            while j < line.count, [0x20, 0x09, 0x0A, 0x0D].contains(line[j]) { j += 1 }
            guard j < line.count, line[j] == 0x22 else { i = j; continue }
            let start = j + 1
            var end = start
            while end < line.count, end - start <= maxFreshenedIdBytes, isPlainIdByte(line[end]) { end += 1 }
            if end < line.count, line[end] == 0x22, end > start, end - start <= maxFreshenedIdBytes {
                if out.isEmpty { out.reserveCapacity(line.count + 4 * suffix.count) }
                out += line[copied..<end]
                out += suffix
                copied = end
            }
            i = end
        }
        if copied == 0 { return line }
        out += line[copied...]
        return out
    }

    private static func isPlainIdByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}
