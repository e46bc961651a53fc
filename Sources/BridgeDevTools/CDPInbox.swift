import BridgeCapture
import NIOConcurrencyHelpers

/// What the DevTools connections hand to the recorder thread, in arrival order, under
/// one lock; the recorder waits on it with a timeout (so it keeps its flush deadline).
final class CDPInbox: Sendable {
    enum Item: Sendable {
        case opened(CDPSession.Channel, CDPSession.ChannelKind)
        case message(CDPSession.Channel, [UInt8])
        case closed(CDPSession.Channel, String)
    }

    private let lock = ConditionLock<Int>(value: 0)
    private nonisolated(unsafe) var items: [Item] = []

    func put(_ item: Item) {
        lock.lock()
        items.append(item)
        lock.unlock(withValue: 1)
    }

    /// Waits up to `timeout` seconds for something, then takes all that waits.
    func take(timeout: Double) -> [Item] {
        if lock.lock(whenValue: 1, timeoutSeconds: max(0, timeout)) {
            let taken = items
            items.removeAll(keepingCapacity: true)
            lock.unlock(withValue: 0)
            return taken
        }
        return []
    }
}
