import BridgeJSON
import Foundation
import Testing

/// Nesting costs heap, not call stack: parser and writer keep open containers on an
/// explicit stack. A recursive descent needs several KB of stack per level in a debug
/// build (4.7 KB measured); 1,000 levels (a fuzz mutation) overflowed a thread of the
/// concurrency pool in CI. Destroying a value is still recursive (the runtime releases
/// nested arrays, about 210 bytes of stack a level), which is why deep limits stay near
/// 1,000 (docs/FORMAT.md, JSONLimits).
struct CallStackTests {
    /// Runs `body` on a thread with a `stackBytes` stack and waits for it.
    static func onSmallStack(_ stackBytes: Int, _ body: @escaping @Sendable () -> Bool) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let result = ResultSlot()
        let thread = Thread {
            result.set(body())
            done.signal()
        }
        thread.stackSize = stackBytes
        thread.start()
        done.wait()
        return result.get()
    }

    @Test(arguments: ["[", "{\"k\":"])
    func aThousandLevelsParseAndWriteBackOn512KiBOfStack(_ opener: String) {
        let depth = 1_000
        let closer = opener == "[" ? "]" : "}"
        let text = String(repeating: opener, count: depth) + "1" + String(repeating: closer, count: depth)
        let ok = Self.onSmallStack(512 << 10) {
            guard let doc = try? JSONParser(limits: JSONLimits(maxDepth: depth)).parse(text) else { return false }
            let back = JSONWriter().string(doc.value)
            return back == text
        }
        #expect(ok)
    }

    @Test func aHundredThousandOpenBracketsStopAtTheLimitOn256KiBOfStack() {
        let text = String(repeating: "[", count: 100_000)
        let ok = Self.onSmallStack(256 << 10) {
            do throws(JSONError) {
                _ = try JSONParser(limits: JSONLimits(maxDepth: 5_000)).parse(text)
                return false
            } catch {
                return error.code == .tooDeep && error.offset == 5_000
            }
        }
        #expect(ok)
    }
}

/// A Bool handed from a thread to the test.
private final class ResultSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set(_ v: Bool) { lock.withLock { value = v } }
    func get() -> Bool { lock.withLock { value } }
}
