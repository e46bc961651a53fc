import BridgeHost

/// Stands between the fuzzer and an in-process host: sees every received message and
/// every batch of sent messages, and may change them. Used by the bug-finding benchmark
/// to build broken host variants outside the shipped host, and by tests.
public protocol HostInterceptor: Sendable {
    /// A message from the web side: return the actions to perform (default behaviour:
    /// `machine.receive(bytes, now: now)`).
    mutating func receive(_ bytes: [UInt8], machine: inout HostStateMachine, now: Int64) -> [HostAction]
    /// Messages the host sent: return what goes on the wire.
    mutating func outbound(_ messages: [OutboundMessage], machine: inout HostStateMachine, now: Int64) -> [OutboundMessage]
    /// The web side went quiet and the host drained: last messages to send.
    mutating func finish(machine: inout HostStateMachine, now: Int64) -> [OutboundMessage]
    /// Set to describe a simulated crash: the run stops and reports it as a crash.
    var failure: String? { get }
}

extension HostInterceptor {
    /// Passes the message to the machine.
    public mutating func receive(_ bytes: [UInt8], machine: inout HostStateMachine, now: Int64) -> [HostAction] {
        machine.receive(bytes, now: now)
    }
    /// Sends everything unchanged.
    public mutating func outbound(_ messages: [OutboundMessage], machine: inout HostStateMachine, now: Int64) -> [OutboundMessage] {
        messages
    }
    /// Sends nothing more.
    public mutating func finish(machine: inout HostStateMachine, now: Int64) -> [OutboundMessage] { [] }
    /// No crash.
    public var failure: String? { nil }
}
