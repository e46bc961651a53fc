@testable import BridgeDevTools
import BridgeJSON
import Foundation
import Testing

/// The WebView targets' socket framing, without WebKit: WebKit's page target, and a
/// navigation to another web process (a provisional target that must be armed with the
/// tap before it runs, then committed), as WebKitGTK 2.50.6 sends them with process swap
/// on (the live run is `WebViewTargetTests.theLinkFollowsTheWebViewToAnotherProcess`).
struct WebViewChannelTests {
    func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
    func text(_ b: [UInt8]) -> String { String(decoding: b, as: UTF8.self) }

    func created(_ id: String, provisional: Bool = false, paused: Bool = false, type: String = "page") -> [UInt8] {
        bytes(#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"\#(id)","type":"\#(type)","isProvisional":\#(provisional),"isPaused":\#(paused)}}}"#)
    }

    func fromTarget(_ id: String, _ inner: String) -> [UInt8] {
        var quoted: [UInt8] = []
        JSONWriter.writeString(inner, into: &quoted)
        return bytes(#"{"method":"Target.dispatchMessageFromTarget","params":{"targetId":"\#(id)","message":"# + text(quoted) + "}}")
    }

    /// The inner command of a wrapped one: (target, method, id).
    func unwrap(_ b: [UInt8]) throws -> (target: String, method: String, id: Int) {
        let outer = try #require(try JSONParser().parse(b).value.objectValue)
        let params = try #require(outer["params"]?.objectValue)
        let message = try #require(params["message"]?.stringValue)
        let inner = try #require(try JSONParser().parse(Array(message.utf8)).value.objectValue)
        return (try #require(params["targetId"]?.stringValue), try #require(inner["method"]?.stringValue),
                try #require(inner["id"]?.numberValue.flatMap { Int($0.lexeme) }))
    }

    func command(_ c: inout WebViewChannel, _ method: String) throws -> (id: Int, bytes: [UInt8]) {
        let sent = c.command(method)
        return try #require(sent)
    }

    func object(_ s: String) throws -> JSONObject {
        try #require(try JSONParser().parse(bytes(s)).value.objectValue)
    }

    func ready() -> WebViewChannel {
        var c = WebViewChannel(kind: .webkit)
        c.opened(now: 0)
        do { let got = c.takeSends().map(text); #expect(got == [#"{"id":1,"method":"Target.setPauseOnStart","params":{"pauseOnStart":true}}"#,
                                                                 #"{"id":2,"method":"Runtime.evaluate","params":{"expression":"1","returnByValue":true}}"#]) }
        let first = c.receive(created("page-7"))
        #expect(first == .ready)
        c.bootstrap = "TAP"
        return c
    }

    @Test func aProvisionalTargetIsArmedWithTheTapThenResumed() throws {
        var c = ready()
        do { let got = c.receive(created("page-17", provisional: true, paused: true)); #expect(got == .ignored) }
        let arming = try c.takeSends().map(unwrap)
        #expect(arming.map(\.target) == ["page-17", "page-17", "page-17"])
        #expect(arming.map(\.method) == ["Console.enable", "Page.enable", "Page.setBootstrapScript"])
        // Not resumed before the bootstrap script is set: the new document would run without the tap.
        do { let got = c.receive(fromTarget("page-17", #"{"id":\#(arming[0].id),"result":{}}"#)); #expect(got == .ignored) }
        do { let got = c.takeSends().isEmpty; #expect(got) }
        do { let got = c.receive(fromTarget("page-17", #"{"id":\#(arming[2].id),"result":{}}"#)); #expect(got == .ignored) }
        do { let got = c.takeSends().map(text); #expect(got == [#"{"id":6,"method":"Target.resume","params":{"targetId":"page-17"}}"#]) }
        // Commands still go to the page target until the commit.
        #expect(try unwrap(try command(&c, "Runtime.evaluate").bytes).target == "page-7")
        do { let got = c.receive(bytes(#"{"method":"Target.didCommitProvisionalTarget","params":{"oldTargetId":"page-7","newTargetId":"page-17"}}"#)); #expect(got == .abandoned(ids: [1], why: "the page moved to another web process (a cross-site navigation) before answering")) }
        let next = try command(&c, "Runtime.evaluate")
        #expect(try unwrap(next.bytes).target == "page-17")
        #expect(try unwrap(next.bytes).id == 4)   // after the three arming commands
        do { let got = c.receive(fromTarget("page-17", #"{"id":4,"result":{"result":{"value":"x"}}}"#)); #expect(got == .answer(id: next.id, result: ["result": ["value": "x"]], error: nil)) }
        do { let got = c.provisional.isEmpty; #expect(got) }
    }

    @Test func answersOfTheOldTargetNeverReachTheNewOnesCommands() throws {
        var c = ready()
        let old = try command(&c, "Runtime.evaluate")
        _ = c.receive(created("page-17", provisional: true))
        _ = c.takeSends()
        do { let got = c.receive(bytes(#"{"method":"Target.didCommitProvisionalTarget","params":{"oldTargetId":"page-7","newTargetId":"page-17"}}"#)); #expect(got == .abandoned(ids: [old.id], why: "the page moved to another web process (a cross-site navigation) before answering")) }
        let new = try command(&c, "Runtime.evaluate")
        #expect(new.id != old.id)
        // A late answer of the old target, with the inner id the new command has too.
        do { let got = c.receive(fromTarget("page-7", #"{"id":\#(try unwrap(new.bytes).id),"result":{}}"#)); #expect(got == .malformed("a message from target page-7, which was never created; skipped")) }
        do { let got = c.receive(fromTarget("page-17", #"{"id":\#(try unwrap(new.bytes).id),"result":{}}"#)); #expect(got == .answer(id: new.id, result: [:], error: nil)) }
    }

    @Test func aTargetThatIsNotPausedIsArmedAndNotResumed() throws {
        var c = ready()
        _ = c.receive(created("page-20", provisional: true, paused: false))
        let arming = try c.takeSends().map(unwrap)
        #expect(arming.map(\.method) == ["Console.enable", "Page.enable", "Page.setBootstrapScript"])
        _ = c.receive(fromTarget("page-20", #"{"id":\#(arming[2].id),"result":{}}"#))
        do { let got = c.takeSends().isEmpty; #expect(got) }
    }

    @Test func otherTargetsAreLetGoAndTheNextProcessesEventsAreThePages() throws {
        var c = ready()
        _ = c.receive(created("worker-1", paused: true, type: "worker"))
        do { let got = c.takeSends().map(text); #expect(got == [#"{"id":3,"method":"Target.resume","params":{"targetId":"worker-1"}}"#]) }
        _ = c.receive(created("page-17", provisional: true, paused: true))
        _ = c.takeSends()
        let event = #"{"method":"Console.messageAdded","params":{"message":{"text":"P d 1 top \"x\""}}}"#
        do { let got = c.receive(fromTarget("page-17", event)); #expect(got == .event(method: "Console.messageAdded", params: ["message": ["text": "P d 1 top \"x\""]])) }
        do { let got = c.receive(fromTarget("worker-1", event)); #expect(got == .ignored) }
        // A navigation given up: the provisional target goes, the page stays.
        do { let got = c.receive(bytes(#"{"method":"Target.targetDestroyed","params":{"targetId":"page-17"}}"#)); #expect(got == .ignored) }
        do { let got = c.provisional.isEmpty; #expect(got) }
        #expect(try unwrap(try command(&c, "Page.reload").bytes).target == "page-7")
    }

    @Test func beforeTheTapIsSetANewProcessRunsUnarmed() {
        var c = WebViewChannel(kind: .webkit)
        c.opened(now: 0)
        _ = c.takeSends()
        let first = c.receive(created("page-7"))
        #expect(first == .ready)
        _ = c.receive(created("page-17", provisional: true, paused: true))
        do { let got = c.takeSends().map(text); #expect(got == [#"{"id":3,"method":"Target.resume","params":{"targetId":"page-17"}}"#]) }
    }

    @Test func provisionalTargetsBeingArmedAreBounded() {
        var c = ready()
        for i in 0..<40 { _ = c.receive(created("page-p\(i)", provisional: true, paused: true)) }
        do { let got = c.provisional.count; #expect(got == 16) }
        // The ones past the bound run at once, unarmed (WebKit's own business).
        let resumes = c.takeSends().map(text).filter { $0.contains("Target.resume") }
        #expect(resumes.count == 24)
    }

    @Test func devToolsSocketsAreNotTargets() throws {
        var c = WebViewChannel(kind: .cdp)
        c.opened(now: 0)
        do { let got = c.takeSends().isEmpty; #expect(got) }
        let (id, b) = try command(&c, "Runtime.enable")
        #expect(text(b) == #"{"id":1,"method":"Runtime.enable","params":{}}"#)
        do { let got = c.receive(bytes(#"{"id":1,"result":{}}"#)); #expect(got == .answer(id: id, result: [:], error: nil)) }
    }
}
