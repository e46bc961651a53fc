import BridgeModel
import BridgeHost
import BridgeJSON
import BridgeProtocol
import BridgeTransport
import Foundation

extension StdioTarget {
    /// One case: send the steps, wait for every well-formed request's final answer (each
    /// to its own deadline), let the output settle, then keep the process or end it.
    func runCase(_ input: FuzzInput, until deadline: ContinuousClock.Instant?, fresh: Bool) -> Trace {
        var trace = Trace(exactTiming: false)
        let clock = ContinuousClock()
        let t0 = clock.now
        func now() -> Int64 { Int64((clock.now - t0) / .milliseconds(1)) }
        func timeUp() -> Bool { deadline.map { clock.now >= $0 } ?? false }

        pool.countCase()
        let kept = fresh ? nil : pool.take()
        var stale: [String: EarlierId] = [:]   // ids earlier cases of the process sent
        let p: ChildProcess
        var count = 0
        if let (process, n, owedBefore) = kept {
            p = process
            count = n
            stale = owedBefore
            if !stale.isEmpty {
                Self.takeOver(Self.idsSent(by: input), from: &stale, in: p, graceMs: owedGraceMs)
                trace.slotsMaybeHeld = Self.slotsMaybeHeld(stale, now: clock.now)
            }
            _ = p.takeLines()
        } else {
            guard let started = try? ChildProcess(executable: "/bin/sh", arguments: ["-c", command], processGroup: true) else {
                trace.targetFailure = "cannot start `\(command)`"
                return trace
            }
            p = started
            pool.started()
        }
        count += 1
        let idSuffix = Array("~\(String(count, radix: 36))".utf8)

        let checker = checker(oracles: [])
        let decoder = EnvelopeDecoder()
        var waiting = AnswerWaits()                              // request objects without a final answer
        var owed: Set<String> = []                               // every id sent, until some answer carries it
        var sentIds: Set<String> = []
        var pending: [String: (count: Int, slot: SlotKind?)] = [:]   // requests per id without a final answer
        var expired = false
        var outLines = 0, outBytes = 0
        var flooded = false

        // A line is stamped with the earliest time the host can have written it: after
        // the last moment its output was seen empty, and after the last line sent. Read
        // late (this process starved of CPU on a loaded machine), it is not judged late,
        // nor as having crossed a later request in flight.
        var seenEmptyMs: Int64 = 0, lastSentMs: Int64 = 0
        func collect(_ timeoutMs: Int32) -> Bool {
            let writtenAfter = max(seenEmptyMs, lastSentMs)
            let open = p.pump(timeoutMs: timeoutMs)
            defer { seenEmptyMs = now() }
            for var line in p.takeLines() {
                if line.last == 0x0D { line.removeLast() }
                guard !line.isEmpty else { continue }
                outLines += 1
                outBytes += line.count
                if outLines > Self.maxOutputLines || outBytes > Self.maxOutputBytes { flooded = true; continue }
                let d = decoder.decode(line, direction: .hostToWeb)
                if d.partial.type == .response, let id = d.partial.correlationId, stale[id] != nil, !sentIds.contains(id) {
                    // A late answer to an earlier case: not this case's.
                    if d.partial.status != .acknowledged, let e = stale[id], e.pending > 0 { stale[id]!.pending -= 1 }
                    continue
                }
                trace.events.append(.received(bytes: line, atMs: writtenAfter))
                guard d.partial.type == .response, let id = d.partial.correlationId else { continue }
                if owed.remove(id) != nil && d.partial.status == .acknowledged && !waiting.contains(id) {
                    // A request we could not read, taken up by this host: its final
                    // answer is due like any other (and holds a slot until it comes).
                    waiting.add([id], deadline: clock.now + .milliseconds(checker.deadline(d.partial.action ?? "", model: checker.model)))
                }
                if d.partial.status != .acknowledged {
                    waiting.answered(id, rejection: AnswerWaits.isRejection(d))
                    if let n = pending[id]?.count, n > 0 { pending[id]!.count = n - 1 }
                }
            }
            if p.stdoutBuffer.count > Self.maxOutputBytes { flooded = true; p.stdoutBuffer.removeAll() }
            return open
        }

        var exitedEarly = false
        steps: for (i, step) in input.steps.enumerated() {
            // The pause only matters while an answer is outstanding: with none, the host
            // cannot tell a pause from none, so the step goes at once.
            let wait = waiting.nothingOwed && owed.isEmpty ? 0 : min(step.delayMs, maxStepDelayMs)
            let until = clock.now + .milliseconds(wait)
            repeat {
                // Rounded up: a timeout of 0 for the last fraction of a millisecond spun.
                let left = until - clock.now
                _ = collect(left <= .zero ? 0 : Int32(min(20, (left + .microseconds(999)) / .milliseconds(1))))
                if timeUp() { trace.cutShort = true; break steps }
            } while clock.now < until
            guard case .message(let bytes) = step.kind else { continue }
            for var line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true).map(Array.init) {
                if line.last == 0x0D { line.removeLast() }
                guard !line.isEmpty else { continue }
                if count > 1 { line = Self.freshen(line, suffix: idSuffix) }
                let d = decoder.decode(line, direction: .webToHost)
                // Every request object is answered, whatever else is wrong with it (§7):
                // wait for it to its deadline, under each id it carries.
                if let r = RequestObject(line) {
                    waiting.add(r.ids, deadline: clock.now + .milliseconds(checker.deadline(r.action ?? "", model: checker.model)))
                }
                // Ids of what may be a request: another host may answer them (events and
                // responses from the web side are never answered).
                if d.partial.type == .request || (d.partial.type == nil && line.count < 1 << 20 && Self.mentionsRequest(line)) {
                    for id in LooseIds.scan(line) { owed.insert(id) }
                }
                if let id = d.partial.correlationId { sentIds.insert(id) }
                if d.partial.type == .request || d.partial.type == nil {
                    let slot = d.partial.action.flatMap { SlotKind(action: Action(rawValue: $0)) }
                    for id in Set(LooseIds.scan(line)) { pending[id, default: (0, slot)].count += 1 }
                }
                for id in LooseIds.scan(line) { sentIds.insert(id) }
                lastSentMs = now()
                trace.events.append(.sent(step: i, bytes: line, atMs: lastSentMs))
                if !p.write(line + [0x0A], timeoutMs: 2_000) {
                    // Gone, or took nothing for 2 s: the line may have reached it in part,
                    // so what it owes cannot be judged.
                    if p.status() == nil { trace.cutShort = true }
                    exitedEarly = true
                    break steps
                }
            }
            if !collect(0) && p.status() != nil { exitedEarly = true; break }
            if flooded { break }
        }

        // Every well-formed request's final answer, each within its own deadline.
        while !waiting.nothingOwed && !trace.cutShort && !flooded {
            if waiting.expire(at: clock.now) { expired = true }
            if waiting.nothingOwed { break }
            if !collect(10) && p.status() != nil { exitedEarly = true; break }
            if timeUp() { trace.cutShort = true }
        }
        // A confirmation run waits for answers to ids another host may route; a kept
        // process remembers them instead (their late answers are leftovers).
        if fresh {
            let graceEnd = clock.now + .milliseconds(confirmSettleMs)
            while !owed.isEmpty && clock.now < graceEnd && !timeUp() && !flooded && !trace.cutShort {
                if !collect(10) && p.status() != nil { break }
            }
        }
        // A kept process: a short wait for answers to request objects our parser refuses
        // (a host answers INVALID_REQUEST at once); a slower answer makes the case a
        // suspect, judged again in a fresh process, which waits for them.
        if !fresh {
            let owedEnd = clock.now + .milliseconds(Self.owedWaitMs)
            while !owed.isEmpty && clock.now < owedEnd && !timeUp() && !flooded && !trace.cutShort {
                if !collect(5) && p.status() != nil { break }
            }
        }
        // Quiet output for settleMs: a second answer, an unsolicited one, shows up here.
        var quietSince = clock.now
        let settle = fresh ? confirmSettleMs : settleMs
        let quietCap = clock.now + .milliseconds(Self.maxQuietWaitMs)
        while clock.now - quietSince < .milliseconds(settle) && clock.now < quietCap && !timeUp() && !flooded {
            let n = trace.events.count
            let left = Int32(max(1, min(10, (Duration.milliseconds(settle) - (clock.now - quietSince)) / .milliseconds(1))))
            if !collect(left) && p.status() != nil { break }
            if trace.events.count != n { quietSince = clock.now }
        }
        if p.status() != nil && !trace.cutShort { exitedEarly = true }

        let clean = !fresh && !exitedEarly && !expired && !flooded && !trace.cutShort && count < casesPerProcess
        if clean {
            let ended = clock.now
            for id in sentIds { stale[id] = EarlierId(ended: ended, pending: pending[id]?.count ?? 0, slot: pending[id]?.slot) }
            pool.put(p, count: count, unanswered: stale)
            return trace
        }
        // End this process: close its input, give it a moment to exit by itself.
        let ranOut = p.status()
        p.closeStdin()
        let exitBy = min(clock.now + .milliseconds(300), deadline ?? clock.now + .milliseconds(300))
        while p.status() == nil && clock.now < exitBy { _ = collect(20) }
        _ = collect(0)
        let end = p.status()
        if end == nil { p.signal(SIGKILL); _ = p.wait() }
        p.signal(SIGKILL)   // whatever the command started and left behind
        if flooded {
            trace.targetFailure = "the host wrote more than \(Self.maxOutputLines) lines or \(Self.maxOutputBytes >> 20) MiB in one case (flooding its output)"
        } else if let t = ranOut {
            // It ended while the case was running, before its input was closed.
            trace.targetFailure = "the host process \(t) while the case was running: \(p.crashLine ?? "")"
        } else if case .signaled(let s)? = end {
            trace.targetFailure = "the host process was killed by signal \(s) (\(ChildProcess.signalName(s))): \(p.crashLine ?? "")"
        } else if case .exited(let code)? = end, code != 0 {
            trace.targetFailure = "the host process exited with status \(code) when its input closed: \(p.crashLine ?? "")"
        }
        return trace
    }

    /// Whether `line` holds `"request"` (a type the decoder could not read as such).
    static func mentionsRequest(_ line: [UInt8]) -> Bool {
        let needle = Array(#""request""#.utf8)
        guard line.count >= needle.count else { return false }
        for i in 0...(line.count - needle.count) where line[i] == 0x22 && line[i..<(i + needle.count)].elementsEqual(needle) { return true }
        return false
    }
}
