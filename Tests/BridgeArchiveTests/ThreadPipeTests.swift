@testable import BridgeArchive
import Dispatch
import Synchronization
import Testing

/// `ThreadPipe`, the hand-over between the reading stages' threads: order kept through a
/// small ring, the end seen once and then always, and a consumer that stops releases a
/// producer blocked on a full pipe, whose later puts then return at once.
@Suite struct ThreadPipeTests {
    @Test func elementsArriveInOrderThroughASmallRing() {
        let pipe = ThreadPipe<Int>(capacity: 2)
        let started = DetachedThread.start(handing: pipe) { pipe in
            for i in 0..<20_000 { pipe.put(i) }
            pipe.finish()
        }
        #expect(started)
        var next = 0
        while let i = pipe.take() {
            #expect(i == next)
            next += 1
        }
        #expect(next == 20_000)
        #expect(pipe.take() == nil)
    }

    @Test func cancellingReleasesABlockedProducer() {
        let pipe = ThreadPipe<Int>(capacity: 1)
        let refused = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        let started = DetachedThread.start(handing: pipe) { pipe in
            // The second put blocks: the pipe holds one and nobody takes it.
            for i in 0..<5 where !pipe.put(i) { refused.add(1, ordering: .relaxed) }
            pipe.finish()
            done.signal()
        }
        #expect(started)
        #expect(pipe.take() == 0)
        pipe.cancel()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(refused.load(ordering: .relaxed) >= 3)
    }
}
