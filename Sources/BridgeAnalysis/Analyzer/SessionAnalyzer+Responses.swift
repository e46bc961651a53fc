#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BridgeJSON
import BridgeProtocol

extension SessionAnalyzer {
    /// A response whose id `found` looked up (``RequestIDs``: open, answered or
    /// unknown). An answer to an open request makes no `String` of its id: the
    /// request's is the same.
    mutating func response(_ c: inout ConnectionState, found: RequestIDs.Lookup, _ m: MessageFacts) {
        guard case .open(let slot) = found.place else {
            let id = m.id ?? ""
            if let action = c.ids.answeredAction(found) {
                emit(ReportFinding(rule: .duplicateResponse,
                                   message: "a second \(m.status?.rawValue ?? "status-less") response to \(action) (\(id)), which was already answered",
                                   connection: c.id, records: [m.record], correlationId: id, time: m.time))
            } else {
                emit(ReportFinding(rule: .unknownCorrelation,
                                   message: "\(m.action ?? "?") response (\(m.status?.rawValue ?? "no status")) to id \(id), which was never requested on this connection",
                                   connection: c.id, records: [m.record], correlationId: id, time: m.time))
            }
            return
        }
        // Moved out of its slot (a copy of 137 bytes retained its strings, twice), and
        // back in when the response is not final.
        var req = c.ids.slots[slot].take()!
        let id = req.id
        let step = req.stepIndex
        if let step { c.addRecord(m.record, to: step) }
        func flag(_ rule: RuleID, _ message: String) {
            emit(ReportFinding(rule: rule, message: message, connection: c.id, records: [m.record, req.record],
                               correlationId: id, time: m.time))
            c.mark(step, rule)
        }
        if let action = m.action, action != req.action {
            flag(.actionMismatch, "response to \(req.action) (\(id)) carries action \(action)")
        }
        let isBusy = m.statusNumber == MessageFacts.errorNumber && m.errorCodeNumber == MessageFacts.busyNumber
        if let other = req.busyWith, !isBusy {
            flag(.busyViolation, "\(req.action) (\(id)) arrived while \(other) held the slot, and was answered \(m.status?.rawValue ?? "without a status") instead of error BUSY")
            req.busyWith = nil
        }
        if m.statusNumber == MessageFacts.acknowledgedNumber {
            req.acknowledged = m.time
            c.ids.slots[slot] = req
            if let step { c[step: step].acknowledged = m.time }
            return
        }

        // The final response.
        // The open entry becomes the answered one where it is.
        c.ids.answer(slot: slot, at: found, id: id, action: req.action, kind: req.kind)
        if req.kind.isTypedSlot, c.activeSlot[req.action, req.kind] == id { c.activeSlot[req.action, req.kind] = nil }
        let elapsed = m.time - req.sent
        latency.record(action: req.action, kind: req.kind, nanos: elapsed, correlationId: id, connection: c.id, record: req.record)
        let timeout = timeoutMilliseconds(req.action, req.kind)
        if elapsed > Self.nanoseconds(milliseconds: timeout) {
            flag(.lateResponse, "\(req.action) (\(id)) answered after \(Self.millis(elapsed)), past the \(timeout) ms timeout")
        }
        if let step {
            c[step: step].end = m.time
            c[step: step].outcome = m.status?.rawValue ?? "no-status"
            c[step: step].errorCode = m.errorCode?.rawValue
            c[step: step].recoverable = m.errorRecoverable
            c.closeStep(step)
        }
        if isBusy { busyAnswer(&c, slot: req.action, m, step: step) }
        if m.errorRecoverable == false, m.statusNumber != MessageFacts.successNumber {
            c.lastFatal[req.action, req.kind] = (id, m.record)
        }
        guard m.statusNumber == MessageFacts.successNumber else { return }
        c.lastSuccess[req.action, req.kind] = SuccessInfo(id: id, dataKey: req.dataKey, sent: req.sent, record: m.record)
        switch req.kind {
        case .documentCapture:
            c.capturedSides.formUnion(req.sides)
        case .capabilityQuery:
            capabilityAnswer(&c, m, step: step)
        case .selfieCapture:
            if let a = m.dataString("encryptedBlob"), let b = m.dataString("unencryptedBlob"),
               let p = m.dataString("previewImageData"), !a.isEmpty, a == b, b == p {
                flag(.stubCaptureResult, "selfie \(id): encryptedBlob, unencryptedBlob and previewImageData are the same \(a.utf8.count) base64 bytes")
            }
        default: break
        }
    }

    /// The timeout of `action`, of kind `kind`, in milliseconds (a known kind's without
    /// hashing its name). `mutating` though it changes nothing: called on the analyzer
    /// that a mutating method holds, a non-mutating one was passed a copy of all 697
    /// bytes of it, a `memcpy` per response.
    mutating func timeoutMilliseconds(_ action: String, _ kind: ActionKind) -> Int64 {
        kind == .other ? configuration.timeouts.milliseconds(for: action) : kindTimeouts[Int(kind.rawValue)]
    }

    /// `milliseconds` in nanoseconds (timeouts are at most a day: no overflow in practice,
    /// and none trapped).
    static func nanoseconds(milliseconds: Int64) -> Int64 {
        milliseconds.multipliedReportingOverflow(by: 1_000_000).partialValue
    }

    /// Whether two byte strings are equal (one `memcmp`; `elementsEqual` of a buffer and
    /// a slice went byte by byte).
    static func same(_ a: UnsafeRawBufferPointer, _ b: ArraySlice<UInt8>) -> Bool {
        a.count == b.count && (a.isEmpty || b.withUnsafeBytes { memcmp(a.baseAddress!, $0.baseAddress!, a.count) == 0 })
    }

    mutating func busyAnswer(_ c: inout ConnectionState, slot: String, _ m: MessageFacts, step: Int?) {
        let window = configuration.busyStormWindowMilliseconds * 1_000_000
        var times = c.busyTimes[slot] ?? []
        times.append(m.time)
        let cut = times.firstIndex { $0 >= m.time - window } ?? times.count
        times.removeFirst(cut)
        // Only whether more than `busyStormCount` fall in the window matters.
        if times.count > configuration.busyStormCount + 1 { times.removeFirst(times.count - configuration.busyStormCount - 1) }
        c.busyTimes[slot] = times
        if times.count > configuration.busyStormCount {
            if !c.inBusyStorm.contains(slot) {
                c.inBusyStorm.insert(slot)
                emit(ReportFinding(rule: .busyRetryStorm,
                                   message: "\(times.count) BUSY answers on \(slot) within \(configuration.busyStormWindowMilliseconds) ms",
                                   connection: c.id, records: [m.record], correlationId: m.id, time: m.time))
                c.mark(step, .busyRetryStorm)
            }
        } else {
            c.inBusyStorm.remove(slot)
        }
    }

    /// A successful capability.query answer: remember it, and flag a change that no
    /// lifecycle event explains (`host-reinit`).
    mutating func capabilityAnswer(_ c: inout ConnectionState, _ m: MessageFacts, step: Int?) {
        if let raw = m.rawData, let last = c.lastCapabilityData, Self.same(raw, last) {
            // The same bytes as the last answer: the same capabilities and signature.
            c.lifecycleSinceQuery = false
            return
        }
        var caps: [String: CapabilityInfo] = [:]
        let data = m.data
        if case .object(let o)? = data?["capabilities"] {
            for member in o.members {
                guard case .object(let info) = member.value else { continue }
                caps[member.key] = CapabilityInfo(supported: info["supported"]?.boolValue,
                                                  version: info["version"]?.stringValue,
                                                  permissionState: info["permissionState"]?.stringValue)
            }
        }
        let env = data?["environment"]?.stringValue ?? "", host = data?["hostVersion"]?.stringValue ?? ""
        let signature = "\(env)|\(host)|" + caps.keys.sorted().map {
            "\($0)=\(caps[$0]!.supported.map(String.init) ?? "?")/\(caps[$0]!.version ?? "")"
        }.joined(separator: ",")
        if let previous = c.capabilitySignature, previous != signature, !c.lifecycleSinceQuery {
            let old = c.capabilities ?? [:]
            let changed = Set(old.keys).union(caps.keys).sorted().filter {
                old[$0]?.supported != caps[$0]?.supported || old[$0]?.version != caps[$0]?.version
            }
            let what = changed.isEmpty ? "environment or hostVersion" : changed.joined(separator: ", ")
            emit(ReportFinding(rule: .hostReinit,
                               message: "capability.query answer changed (\(what)) with no lifecycle event in between",
                               connection: c.id, records: [m.record], correlationId: m.id, time: m.time))
            c.mark(step, .hostReinit)
        }
        c.capabilitySignature = signature
        c.hostVersion = data?["hostVersion"]?.stringValue
        c.environment = data?["environment"]?.stringValue
        c.capabilities = caps
        c.lastCapabilityData = m.rawData.map { ArraySlice(Array($0)) }  // a copy: the message may be a slice of a reused buffer
        c.lifecycleSinceQuery = false
    }
}
