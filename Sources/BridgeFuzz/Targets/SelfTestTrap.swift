import BridgeHost

/// A test affordance for the crash path (hidden `--selftest-trap MARKER`): the
/// in-process host traps as soon as it receives a message containing `marker`, so tests
/// and the nightly script can check end to end that a trap is caught, its case kept,
/// minimized and written, and the worker restarted. Never set in normal runs.
struct SelfTestTrap: HostInterceptor {
    /// The bytes that trigger the trap.
    public let marker: [UInt8]

    /// Creates the interceptor.
    public init(marker: String) {
        self.marker = Array(marker.utf8)
    }

    /// Traps on the marker; passes everything else to the machine.
    public mutating func receive(_ bytes: [UInt8], machine: inout HostStateMachine, now: Int64) -> [HostAction] {
        if !marker.isEmpty, bytes.count >= marker.count {
            for i in 0...(bytes.count - marker.count) where bytes[i] == marker[0] && Array(bytes[i..<(i + marker.count)]) == marker {
                fatalError("selftest trap: the message holds the marker")
            }
        }
        return machine.receive(bytes, now: now)
    }
}
