import BridgeFuzz
import BridgeHost
import BridgeJSON
import BridgeProtocol

/// Deliberately broken hosts for the bug-finding benchmark. They exist only here: each
/// wraps the reference state machine with a ``HostInterceptor`` that reintroduces one
/// classic host bug. The shipped host never has an interceptor.
struct Variant: Sendable {
    let name: String
    let bug: String
    /// The finding that shows the bug: `oracle signature` prefix.
    let expected: String
    let scenario: Scenario
    let make: @Sendable () -> any HostInterceptor
}

let decoder = EnvelopeDecoder()

/// Reads what a variant needs from a received message.
func request(_ bytes: [UInt8]) -> Envelope? {
    let r = decoder.decode(bytes, direction: .webToHost)
    guard r.isValid, let e = r.envelope, e.type == .request else { return nil }
    return e
}

/// A message built from `template` (OutboundMessage has no public initializer: variants
/// reuse one the host sent, `host.ready` at the latest, and replace its contents).
func message(_ env: Envelope, like template: OutboundMessage) -> OutboundMessage {
    var m = template
    m.envelope = env
    m.bytes = try! EnvelopeEncoder().encode(env, direction: .hostToWeb)
    return m
}

func response(to e: Envelope, _ r: BridgeResponse, at now: Int64, like template: OutboundMessage) -> OutboundMessage {
    message(Envelope.response(correlationId: e.correlationId, action: e.payload.action, status: r.status, data: r.data,
                              error: r.error, timestamp: now), like: template)
}

/// 1. The busy check is off by one: a slot serves two captures at once before it says BUSY.
struct BusyOffByOne: HostInterceptor {
    var template: OutboundMessage?
    var extra: [(Envelope, Int64)] = []
    var extraHeld: [SlotKind: Int64] = [:]
    mutating func receive(_ bytes: [UInt8], machine: inout HostStateMachine, now: Int64) -> [HostAction] {
        if let e = request(bytes), let slot = SlotKind(action: e.payload.action), let active = machine.activeToken(slot),
           active.correlationId != e.correlationId, (extraHeld[slot] ?? .min) <= now {
            extra.append((e, now + 100))
            extraHeld[slot] = now + 100
            return []
        }
        return machine.receive(bytes, now: now)
    }
    mutating func outbound(_ messages: [OutboundMessage], machine: inout HostStateMachine, now: Int64) -> [OutboundMessage] {
        if template == nil { template = messages.first }
        return messages + flush(upTo: now)
    }
    mutating func finish(machine: inout HostStateMachine, now: Int64) -> [OutboundMessage] { flush(upTo: .max) }
    mutating func flush(upTo now: Int64) -> [OutboundMessage] {
        let due = extra.filter { $0.1 <= now }
        extra.removeAll { $0.1 <= now }
        guard let template else { return [] }
        let data = JSONObject([.init(key: "width", value: .integer(540)), .init(key: "height", value: .integer(380))])
        return due.map { response(to: $0.0, .success(data), at: $0.1, like: template) }
    }
}

/// 2. A cancelled capture is answered twice (the UI's dismiss and the handler both respond).
struct SecondResponseOnCancel: HostInterceptor {
    mutating func outbound(_ messages: [OutboundMessage], machine: inout HostStateMachine, now: Int64) -> [OutboundMessage] {
        messages.flatMap { $0.envelope.payload.status == .cancelled ? [$0, $0] : [$0] }
    }
}

/// 3. The host traps on a correlationId longer than 1 KiB (a fixed-size buffer).
struct CrashOnHugeId: HostInterceptor {
    var failure: String?
    mutating func receive(_ bytes: [UInt8], machine: inout HostStateMachine, now: Int64) -> [HostAction] {
        if let id = decoder.decode(bytes, direction: .webToHost).partial.correlationId, id.utf8.count > 1024 {
            failure = "trap: correlationId of \(id.utf8.count) bytes overflowed a 1 KiB buffer"
            return []
        }
        return machine.receive(bytes, now: now)
    }
}

/// 4. Pending requests leak: every BUSY answer leaves a phantom entry in the pending table.
struct PendingLeak: HostInterceptor {
    var leaks = 0
    mutating func outbound(_ messages: [OutboundMessage], machine: inout HostStateMachine, now: Int64) -> [OutboundMessage] {
        for m in messages where m.envelope.payload.error?.code == .busy {
            if leaks == 0 { machine.registerConfigurationHandler(action: "internal.leak", .external) }
            leaks += 1
            let phantom = Envelope.request(correlationId: "leak-\(leaks)", action: "internal.leak", timestamp: now)
            _ = machine.receive(try! EnvelopeEncoder().encode(phantom, direction: .webToHost), now: now)
        }
        return messages
    }
}

/// 5. Wrong capability precedence: a slot serving a capture is reported `supported: false`
/// (busy taken for unavailable) by `capability.query`.
struct BusyHidesCapability: HostInterceptor {
    mutating func outbound(_ messages: [OutboundMessage], machine: inout HostStateMachine, now: Int64) -> [OutboundMessage] {
        messages.map { m in
            guard m.envelope.payload.action == .capabilityQuery, m.envelope.type == .response,
                  var data = m.envelope.payload.data, var caps = data["capabilities"]?.objectValue else { return m }
            var changed = false
            for slot in SlotKind.allCases where machine.activeToken(slot) != nil {
                if var entry = caps[slot.capabilityID]?.objectValue {
                    entry.set("supported", .bool(false))
                    caps.set(slot.capabilityID, .object(entry))
                    changed = true
                }
            }
            guard changed else { return m }
            data.set("capabilities", .object(caps))
            var env = m.envelope
            env.payload.data = data
            return message(env, like: m)
        }
    }
}

extension Variant {
    static let all: [Variant] = {
        var cancelThird = Scenario()
        cancelThird.document.outcomes = [.success, .success, .success, .cancelled]
        return [
            Variant(name: "busy-off-by-one", bug: "a slot serves two captures before answering BUSY",
                    expected: "one-capture-per-slot concurrent-captures", scenario: .default, make: { BusyOffByOne() }),
            Variant(name: "second-response-on-cancel", bug: "the fourth document capture is cancelled and answered twice",
                    expected: "one-response second-final-response", scenario: cancelThird, make: { SecondResponseOnCancel() }),
            Variant(name: "crash-on-huge-id", bug: "a correlationId over 1 KiB traps",
                    expected: "crash target-failed", scenario: .default, make: { CrashOnHugeId() }),
            Variant(name: "pending-leak", bug: "each BUSY answer leaks a pending request",
                    expected: "pending-drains pending-left", scenario: .default, make: { PendingLeak() }),
            Variant(name: "wrong-capability-precedence", bug: "capability.query reports a busy slot as unsupported",
                    expected: "capability-query wrong-capability", scenario: .default, make: { BusyHidesCapability() }),
        ]
    }()
}
