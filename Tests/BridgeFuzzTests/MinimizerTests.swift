import Foundation
import BridgeFuzz
import Testing

@Suite struct MinimizerTests {
    @Test func stepsShrinkToTheOnesThatMatter() async {
        let steps = (0..<40).map { FuzzStep(delayMs: 10, message: bytes("m\($0)")) }
        var minimizer = Minimizer()
        let small = await minimizer.minimize(FuzzInput(steps)) { c in
            c.messages.contains(bytes("m7")) && c.messages.contains(bytes("m31"))
        }
        #expect(small.messages == [bytes("m7"), bytes("m31")])
        #expect(small.steps.allSatisfy { $0.delayMs == 0 })
    }

    @Test func jsonTreesShrinkToTheMembersThatMatter() async {
        let big = bytes(#"{"version":"1.0","correlationId":"abc","type":"request","timestamp":1700000000000,"payload":{"action":"nfc.read","data":{"x":[1,2,3],"bad":"\u0000 NUL here and more text"}}}"#)
        var minimizer = Minimizer()
        let small = await minimizer.minimize(FuzzInput(messages: [big])) { c in
            String(decoding: c.messages.first ?? [], as: UTF8.self).contains("\\u0000")
        }
        let text = String(decoding: small.messages[0], as: UTF8.self)
        #expect(text.count < 20, "\(text)")
    }

    @Test func bytesShrinkWhenNotJSON() async {
        var minimizer = Minimizer()
        let small = await minimizer.minimize(FuzzInput(messages: [bytes("garbage{{{KEY}}}garbage")])) { c in
            String(decoding: c.messages.first ?? [], as: UTF8.self).contains("KEY")
        }
        #expect(small.messages == [bytes("KEY")])
    }

    @Test func theBudgetIsRespected() async {
        var runs = 0
        var minimizer = Minimizer(budget: 5)
        _ = await minimizer.minimize(FuzzInput(messages: (0..<500).map { bytes("\($0)") })) { c in
            runs += 1
            return c.messages.contains(bytes("250"))
        }
        #expect(runs <= 5)
        #expect(minimizer.cutShort, "stopped on its budget, so the finding is marked not fully minimized")
    }

    @Test func theDeadlineIsRespected() async {
        var runs = 0
        var minimizer = Minimizer(budget: 100_000, deadline: ContinuousClock.now + .milliseconds(200))
        let started = ContinuousClock.now
        _ = await minimizer.minimize(FuzzInput(messages: (0..<500).map { bytes("\($0)") })) { _ in
            runs += 1
            // Blocking on purpose: a suspended task may wait long for a thread when other
            // tests hold the pool, and the deadline must hold for a slow target, not a sleeping one.
            usleep(5_000)
            return false
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(minimizer.cutShort)
        #expect(runs < 1_000)
    }
}
