import BridgeTransport
import Foundation

/// The cores this process may use: Foundation's count (online processors, a cgroup CPU
/// quota) capped by the scheduler affinity mask (`taskset -c 0` gives 1), as the host
/// server counts its event loops. `analyze --jobs` defaults to it; `cat`, `export` and
/// `analyze` read ahead on more threads only when it is above 1 (docs/ANALYZER.md).
func usableCores() -> Int {
    var count = ProcessInfo.processInfo.activeProcessorCount
    if let allowed = WebSocketServer.allowedCPUs(), allowed > 0 { count = min(count, allowed) }
    return max(1, count)
}
