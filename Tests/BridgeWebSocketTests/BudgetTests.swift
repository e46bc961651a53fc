import BridgeWebSocket
import NIOCore
import Synchronization
import Testing

/// ``FrameReader`` (stops at every header, before buffering) and ``MemoryBudget``.
struct BudgetTests {
    @Test(arguments: [1, 2, 3, 7, 100, 70_000])
    func theReaderCutsFramesInAnySplitAndStopsAtEachHeader(_ split: Int) {
        let messages: [[UInt8]] = [[], Array("{}".utf8), Array(repeating: 0x61, count: 300), Array(repeating: 0x62, count: 70_000)]
        var stream: [UInt8] = []
        for m in messages { stream += WebSocketFrameHeader.encode(opcode: .text, maskKey: 0x1234_5678, payload: m) }
        var reader = FrameReader()
        var headers: [Int] = []
        var frames: [[UInt8]] = []
        var offset = 0
        while offset < stream.count {
            var input = ByteBuffer(bytes: stream[offset..<min(stream.count, offset + split)])
            offset += split
            loop: while true {
                switch reader.next(from: &input) {
                case .needMore: break loop
                case .invalidLength: Issue.record("invalid length"); return
                case .header(let h):
                    headers.append(h.payloadLength)
                    #expect(reader.heldBytes == 0, "nothing is buffered before the caller accepts the header")
                case .frame(_, let payload): frames.append(payload)
                }
            }
            #expect(input.readableBytes == 0)
        }
        #expect(headers == messages.map(\.count))
        #expect(frames == messages)
        #expect(!reader.inFrame)
    }

    @Test func aLengthWithItsTopBitSetIsInvalid() {
        var reader = FrameReader()
        var input = ByteBuffer(bytes: [0x81, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0])
        guard case .invalidLength = reader.next(from: &input) else { Issue.record("accepted"); return }
    }

    @Test func theBudgetRefusesGrowthPastItsLimitButNotSmallHoldings() {
        let budget = MemoryBudget(limit: 1 << 20)
        let a = budget.account(evict: {}), b = budget.account(evict: {})
        #expect(a.request(800 << 10))
        #expect(!b.request(400 << 10), "past the limit")
        #expect(b.request(MemoryBudget.smallAllowance), "small holdings are never refused")
        #expect(budget.heldBytes == 800 << 10)
        a.close()
        #expect(b.request(400 << 10))
        #expect(budget.heldBytes == 400 << 10)
        b.close()
        #expect(budget.heldBytes == 0 && budget.holderCount == 0)
    }

    @Test func theLargestStaleHolderIsEvictedOnce() async throws {
        let budget = MemoryBudget(limit: 1 << 20)
        let evicted = Atomic<Int>(0)
        let big = budget.account(evict: { evicted.add(10, ordering: .relaxed) })
        let small = budget.account(evict: { evicted.add(1, ordering: .relaxed) })
        #expect(big.request(600 << 10))
        #expect(small.request(300 << 10))
        let asker = budget.account(evict: {})
        #expect(!asker.request(500 << 10))
        #expect(evicted.load(ordering: .relaxed) == 0, "nobody has held for a second yet")
        try await Task.sleep(nanoseconds: UInt64(MemoryBudget.minimumHoldBeforeEviction * 1.1e9))
        #expect(!asker.request(500 << 10))
        #expect(evicted.load(ordering: .relaxed) == 10, "the largest holder goes first")
        #expect(!asker.request(500 << 10))
        #expect(evicted.load(ordering: .relaxed) == 11, "then the next; each only once")
        big.close()
        #expect(asker.request(500 << 10))
    }

    @Test func inflationInSlicesMatchesInflationAtOnce() throws {
        let sender = try PerMessageDeflate(agreement: DeflateAgreement(), maxMessageBytes: 8 << 20, isServer: false)
        let whole = try PerMessageDeflate(agreement: DeflateAgreement(), maxMessageBytes: 8 << 20)
        let sliced = try PerMessageDeflate(agreement: DeflateAgreement(), maxMessageBytes: 8 << 20)
        for size in [0, 10, 70_000, 3 << 20] {
            let message = (0..<size).map { UInt8(truncatingIfNeeded: $0 / 7 &* 31) }
            let wire = try sender.deflate(message)
            #expect(try whole.inflate(wire) == message)
            var job = sliced.beginInflating(wire)
            var slices = 0
            var out: [UInt8]?
            while out == nil {
                out = try sliced.continueInflating(&job, slice: 64 << 10)
                slices += 1
            }
            #expect(out == message)
            #expect(slices >= size / (128 << 10), "\(slices) slices for \(size) bytes")
        }
    }

    @Test func aBombIsStoppedByTheRatioEarly() throws {
        let sender = try PerMessageDeflate(agreement: DeflateAgreement(), maxMessageBytes: 16 << 20, isServer: false)
        let inflater = try PerMessageDeflate(agreement: DeflateAgreement(), maxMessageBytes: 16 << 20)
        let bomb = try sender.deflate(Array(repeating: 0, count: 15 << 20))
        var job = inflater.beginInflating(bomb)
        do {
            while try inflater.continueInflating(&job, slice: 1 << 20, maxRatio: 100) == nil {}
            Issue.record("a \(bomb.count)-byte bomb was inflated")
        } catch {
            #expect(error.kind == .tooCompressed)
            #expect(job.inflatedBytes < 4 << 20, "stopped after \(job.inflatedBytes) bytes")
        }
    }

    @Test func deflationInSlicesInflatesToTheMessage() throws {
        for contextTakeover in [true, false] {
            let agreement = DeflateAgreement(clientNoContextTakeover: !contextTakeover)
            let sender = try PerMessageDeflate(agreement: agreement, maxMessageBytes: 8 << 20, isServer: false)
            let receiver = try PerMessageDeflate(agreement: agreement, maxMessageBytes: 8 << 20)
            for size in [0, 10, 70_000, 3 << 20, 5] {
                let message = (0..<size).map { UInt8(truncatingIfNeeded: $0 / 5 &* 17) }
                var job = sender.beginDeflating(message)
                var wire: [UInt8]?
                while wire == nil { wire = try sender.continueDeflating(&job, slice: 256 << 10) }
                #expect(try receiver.inflate(wire!) == message)
                #expect(try receiver.inflate(try sender.deflate(message)) == message, "the stream goes on after a sliced message")
            }
        }
    }

    @Test func emptyMessagesInARowDeflate() throws {
        // Two sync flushes without input in between: zlib answers Z_BUF_ERROR; the
        // deflater used to grow its buffer until the size overflowed (a crash).
        let sender = try PerMessageDeflate(agreement: DeflateAgreement(), maxMessageBytes: 1 << 20, isServer: false)
        let receiver = try PerMessageDeflate(agreement: DeflateAgreement(), maxMessageBytes: 1 << 20)
        for message in [[], [], Array("{}".utf8), [], []] as [[UInt8]] {
            #expect(try receiver.inflate(try sender.deflate(message)) == message)
        }
    }
}
