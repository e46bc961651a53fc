#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Gives freed message buffers back to the operating system (glibc), so a process that
/// held hundreds of megabytes for a burst of large messages shrinks again afterwards.
///
/// glibc serves large allocations from `mmap` only below a threshold that grows each time
/// such a block is freed (up to 32 MiB), so after the first 16 MiB message every later one
/// comes from the heap, whose top is rarely returned: the issue measured 3.87 GB kept after
/// 200 connections closed. ``install()`` fixes the threshold at 1 MiB (`mallopt`), and
/// ``noteRelease(heldNow:limit:)`` calls `malloc_trim(0)` when a budget empties, at most
/// once a second. Elsewhere (macOS, musl) both do nothing.
public enum MemoryRelease {
    private typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    private typealias MallocTrim = @convention(c) (Int) -> Int32
    private static let functions: (mallopt: Mallopt?, trim: MallocTrim?) = {
        #if canImport(Glibc)
        let handle = dlopen(nil, RTLD_NOW)
        let opt = dlsym(handle, "mallopt").map { unsafeBitCast($0, to: Mallopt.self) }
        let trim = dlsym(handle, "malloc_trim").map { unsafeBitCast($0, to: MallocTrim.self) }
        return (opt, trim)
        #else
        return (nil, nil)
        #endif
    }()
    private static let lastTrim = Mutex<ContinuousClock.Instant?>(nil)
    private static let installed = Mutex(false)

    /// Fixes glibc's mmap threshold at 1 MiB (`M_MMAP_THRESHOLD`, -3), so every buffer of
    /// a large message is its own mapping and goes back to the system when freed. Idempotent.
    public static func install() {
        let first = installed.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first { _ = functions.mallopt?(-3, 1 << 20) }
    }

    /// Called when counted bytes fall: trims the heap once they are below a quarter of
    /// the limit, at most once per second.
    static func noteRelease(heldNow: Int, limit: Int) {
        guard heldNow < limit / 4, let trim = functions.trim else { return }
        let now = ContinuousClock.now
        let due = lastTrim.withLock { last -> Bool in
            if let l = last, now - l < .seconds(1) { return false }
            last = now
            return true
        }
        if due { _ = trim(0) }
    }

    /// Trims the heap now (tests, and after a burst of closes).
    static func trimNow() { _ = functions.trim?(0) }
}
