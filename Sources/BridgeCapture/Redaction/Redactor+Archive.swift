import BridgeArchive

extension Redactor {
    /// This redactor as an ``ArchiveMessageTransform``, so `bridgescope record --redact`
    /// applies to every source (tap logs, pcap, live capture, proxy) at the one place all
    /// messages pass: the archive writer. Messages with nothing to redact are stored as
    /// given; `onRedacted` (if any) receives the number of fields replaced in a message.
    public func archiveTransform(onRedacted: ((Int) -> Void)? = nil) -> ArchiveMessageTransform {
        { payload in
            let result = self.redact(Array(payload))
            guard result.redactedFields > 0 else { return nil }
            onRedacted?(result.redactedFields)
            return result.bytes
        }
    }
}
