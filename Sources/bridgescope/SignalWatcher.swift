import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns SIGINT and SIGTERM into one call of a shutdown closure (the CLI owns signals;
/// libraries never install handlers).
enum SignalWatcher {
    /// Watches SIGINT and SIGTERM until the returned sources are cancelled.
    static func shutdown(_ action: @escaping @Sendable () -> Void) -> SignalSources {
        let queue = DispatchQueue(label: "bridgescope.signals")
        var sources: [DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setEventHandler { action() }
            source.resume()
            sources.append(source)
        }
        return SignalSources(sources: sources)
    }
}

/// Signal sources to cancel when the command ends.
struct SignalSources {
    let sources: [DispatchSourceSignal]
    func cancel() { sources.forEach { $0.cancel() } }
}
