import BridgeArchive
import BridgeCapture
import BridgeDevTools
import BridgeJSON
import Foundation
import Testing

/// The DevTools recorder's protocol logic, without a browser: CDP messages in, actions out.
struct CDPSessionTests {
    let binding = "__bridgescope_test"

    func session() -> CDPSession {
        CDPSession(tapSource: "/* bridgescope tap */", bindingName: binding)
    }

    func text(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// The methods sent, in order.
    func methods(_ actions: [CDPSession.Action]) -> [String] {
        actions.compactMap { action in
            guard case .send(_, let bytes) = action, case .object(let o)? = try? JSONParser().parse(bytes).value else { return nil }
            return o["method"]?.stringValue
        }
    }

    func events(_ actions: [CDPSession.Action]) -> [ArchiveEvent] {
        actions.compactMap { if case .event(let e) = $0 { return e } else { return nil } }
    }

    /// A session attached to one page (session "S1") with its main frame's context 7 open.
    func attachedSession() -> CDPSession {
        var s = session()
        _ = s.channelOpened(1, kind: .browser, now: 1)
        _ = s.receive(1, text(#"{"method":"Target.attachedToTarget","params":{"sessionId":"S1","targetInfo":{"targetId":"T1","type":"page","url":"http://a/j.html"},"waitingForDebugger":true}}"#), now: 2)
        _ = s.receive(1, text(#"{"method":"Runtime.executionContextCreated","params":{"context":{"id":7,"origin":"http://a","auxData":{"isDefault":true,"frameId":"T1"}}},"sessionId":"S1"}"#), now: 3)
        return s
    }

    func bindingCall(_ payload: String, context: Int = 7) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.writeString(payload, into: &out)
        return text(#"{"method":"Runtime.bindingCalled","params":{"name":"__bridgescope_test","payload":"#
                    + String(decoding: out, as: UTF8.self) + #","executionContextId":\#(context)},"sessionId":"S1"}"#)
    }

    @Test func aBrowserEndpointAutoAttachesAndATargetGetsTheTapBeforeItRuns() {
        var s = session()
        #expect(methods(s.channelOpened(1, kind: .browser, now: 1)) == ["Target.setDiscoverTargets", "Target.setAutoAttach"])
        let actions = s.receive(1, text(#"{"method":"Target.attachedToTarget","params":{"sessionId":"S1","targetInfo":{"targetId":"T1","type":"page","url":"http://a/"},"waitingForDebugger":true}}"#), now: 2)
        let sent = methods(actions)
        #expect(sent.first == "Runtime.addBinding")
        #expect(sent.last == "Runtime.runIfWaitingForDebugger", "the target resumes only after the tap is installed")
        #expect(sent.firstIndex(of: "Page.addScriptToEvaluateOnNewDocument")! < sent.firstIndex(of: "Runtime.runIfWaitingForDebugger")!)
        #expect(sent.contains("Target.setAutoAttach"), "out-of-process iframes are attached too")
        // Every command of the target carries its session id.
        for case .send(_, let bytes) in actions { #expect(String(decoding: bytes, as: UTF8.self).contains(#""sessionId":"S1""#)) }
    }

    /// Each new document of a recorded page gets the binding again, on its target's
    /// session: a document created in a new renderer while the target was being attached
    /// could miss it, and its tap then held every line (`twoTabsAreTwoConnections` under
    /// load). An isolated world gets nothing.
    @Test func aNewDocumentGetsTheBindingAgain() {
        var s = attachedSession()
        let actions = s.receive(1, text(#"{"method":"Runtime.executionContextCreated","params":{"context":{"id":8,"origin":"http://a","auxData":{"isDefault":true,"frameId":"T1"}}},"sessionId":"S1"}"#), now: 4)
        #expect(events(actions).map(\.kind) == [.open])
        #expect(methods(actions) == ["Runtime.addBinding"])
        for case .send(_, let bytes) in actions {
            let sent = String(decoding: bytes, as: UTF8.self)
            #expect(sent.contains(#""sessionId":"S1""#) && sent.contains(#""name":"\#(binding)""#), "\(sent)")
        }
        let isolated = s.receive(1, text(#"{"method":"Runtime.executionContextCreated","params":{"context":{"id":9,"origin":"","auxData":{"isDefault":false,"frameId":"T1"}}},"sessionId":"S1"}"#), now: 5)
        #expect(isolated.isEmpty)
    }

    @Test func pastTheTargetCapATargetIsResumedDetachedAndCountedAsADrop() {
        var s = session()
        s.maxTargets = 2
        _ = s.channelOpened(1, kind: .browser, now: 1)
        func attached(_ n: Int) -> [CDPSession.Action] {
            s.receive(1, text(#"{"method":"Target.attachedToTarget","params":{"sessionId":"S\#(n)","targetInfo":{"targetId":"T\#(n)","type":"iframe","url":"http://a/f\#(n).html"},"waitingForDebugger":true}}"#), now: 2)
        }
        #expect(methods(attached(1)).first == "Runtime.addBinding")
        #expect(methods(attached(2)).first == "Runtime.addBinding")
        let third = attached(3)
        #expect(methods(third) == ["Runtime.runIfWaitingForDebugger", "Target.detachFromTarget"])
        #expect(events(third).map(\.kind) == [.drop])
        #expect(events(third).first?.reason?.contains("http://a/f3.html not recorded: 2 targets") == true)
        #expect(s.targetsRefused == 1)
        // A slot comes back when a target goes.
        _ = s.receive(1, text(#"{"method":"Target.detachedFromTarget","params":{"sessionId":"S1"}}"#), now: 3)
        #expect(methods(attached(4)).first == "Runtime.addBinding")
        #expect(CDPSession.defaultMaxTargets == 256)
    }

    @Test func aPageNotMatchingTheFilterIsResumedAndLeft() {
        var s = CDPSession(tapSource: "", bindingName: binding, targetFilter: "journey")
        _ = s.channelOpened(1, kind: .browser, now: 1)
        let actions = s.receive(1, text(#"{"method":"Target.attachedToTarget","params":{"sessionId":"S9","targetInfo":{"targetId":"T9","type":"page","url":"http://other/"},"waitingForDebugger":true}}"#), now: 2)
        #expect(methods(actions) == ["Runtime.runIfWaitingForDebugger", "Target.detachFromTarget"])
    }

    @Test func aTapLineBecomesARecordOnTheFramesConnection() {
        var s = attachedSession()
        let line = #"{"t":1700000000123,"dir":"w2h","msg":{"version":"1.0","type":"request"}}"#
        let actions = s.receive(1, bindingCall(line), now: 4)
        guard case .record(let t, let d, let c, let payload)? = actions.first else { Issue.record("no record: \(actions)"); return }
        #expect(t == 1_700_000_000_123_000_000)
        #expect(d == .webToHost)
        #expect(c == "t1.f1.d1")
        #expect(String(decoding: payload, as: UTF8.self) == #"{"version":"1.0","type":"request"}"#)
        // Android's string stays the string, byte for byte.
        let android = s.receive(1, bindingCall(#"{"t":1700000000124,"dir":"w2h","text":"{ \"a\" : 1 }"}"#), now: 5)
        guard case .record(_, _, _, let raw)? = android.first else { Issue.record("no record"); return }
        #expect(String(decoding: raw, as: UTF8.self) == #"{ "a" : 1 }"#)
    }

    @Test func aHostilePageCallingTheBindingWithGarbageGetsErrorEventsAndNothingElseIsLost() {
        var s = attachedSession()
        let garbage = ["", "null", "{", "{\"t\":-1,\"dir\":\"w2h\",\"msg\":{}}", "{\"t\":1,\"dir\":\"sideways\",\"msg\":{}}",
                       "line\nbreak", String(repeating: "[", count: 10_000), "{\"t\":1,\"dir\":\"w2h\",\"unrecordable\":\"cycle\"}"]
        for g in garbage {
            let actions = s.receive(1, bindingCall(g), now: 9)
            #expect(!actions.isEmpty && actions.count == events(actions).count, "\(g.prefix(20)): \(actions)")
            #expect(events(actions).allSatisfy { $0.kind == .error && $0.connection == "t1.f1.d1" })
        }
        // A call without a payload, a call of another binding, non-JSON from DevTools.
        #expect(events(s.receive(1, text(#"{"method":"Runtime.bindingCalled","params":{"name":"__bridgescope_test","executionContextId":7},"sessionId":"S1"}"#), now: 9)).first?.kind == .error)
        #expect(s.receive(1, text(#"{"method":"Runtime.bindingCalled","params":{"name":"other","payload":"x","executionContextId":7},"sessionId":"S1"}"#), now: 9).isEmpty)
        #expect(events(s.receive(1, text("not json at all"), now: 9)).first?.kind == .error)
        #expect(events(s.receive(1, text("[1,2]"), now: 9)).first?.kind == .error)
        // The next good line still records.
        let ok = s.receive(1, bindingCall(#"{"t":1700000000000,"dir":"h2w","msg":{}}"#), now: 10)
        guard case .record? = ok.first else { Issue.record("good line lost: \(ok)"); return }
    }

    @Test func oneCallCarriesTheLinesOfOnePageTaskInOrder() {
        var s = attachedSession()
        let lines = (1...3).map { #"{"t":170000000000\#($0),"dir":"w2h","msg":{"n":\#($0)}}"# }
        let actions = s.receive(1, bindingCall(lines.joined(separator: "\n") + "\nnot a line"), now: 4)
        let bodies = actions.compactMap { a -> String? in
            if case .record(_, _, _, let p) = a { return String(decoding: p, as: UTF8.self) } else { return nil }
        }
        #expect(bodies == [#"{"n":1}"#, #"{"n":2}"#, #"{"n":3}"#])
        #expect(events(actions).map(\.kind) == [.error])
    }

    @Test func aTwentyMegabyteMessageIsRecordedWhole() {
        var s = attachedSession()
        let image = String(repeating: "QUJD", count: 5_000_000)  // 20 MB of base64
        let message = #"{"version":"1.0","type":"response","payload":{"data":{"imageData":""# + image + #""}}}"#
        let actions = s.receive(1, bindingCall(#"{"t":1700000000000,"dir":"h2w","msg":"# + message + "}"), now: 4)
        guard case .record(_, _, _, let payload)? = actions.first else { Issue.record("not recorded: \(events(actions))"); return }
        #expect(payload.count == message.utf8.count)
    }

    @Test func crashesDetachesReloadsAndTheEndCloseTheirConnectionsWithAReason() {
        var s = attachedSession()
        let crash = events(s.receive(1, text(#"{"method":"Inspector.targetCrashed","params":{},"sessionId":"S1"}"#), now: 5))
        #expect(crash.map(\.kind) == [.close])
        #expect(crash.first?.reason?.hasPrefix("target crashed") == true)
        // A new document in the same frame is a new connection.
        let open = events(s.receive(1, text(#"{"method":"Runtime.executionContextCreated","params":{"context":{"id":8,"origin":"http://a","auxData":{"isDefault":true,"frameId":"T1"}}},"sessionId":"S1"}"#), now: 6))
        #expect(open.first?.kind == .open && open.first?.connection == "t1.f1.d2")
        let cleared = events(s.receive(1, text(#"{"method":"Runtime.executionContextsCleared","params":{},"sessionId":"S1"}"#), now: 7))
        #expect(cleared.first?.kind == .close && cleared.first?.reason?.contains("navigation or reload") == true)
        _ = s.receive(1, text(#"{"method":"Runtime.executionContextCreated","params":{"context":{"id":9,"origin":"http://a","auxData":{"isDefault":true,"frameId":"T1"}}},"sessionId":"S1"}"#), now: 8)
        // The DevTools connection closing closes what is open, once.
        let gone = events(s.channelClosed(1, reason: "browser gone", now: 9))
        #expect(gone.map(\.connection) == ["t1.f1.d3"])
        #expect(events(s.finish(now: 10)).isEmpty)
    }

    @Test func isolatedWorldsAreNotThePage() {
        var s = attachedSession()
        let actions = s.receive(1, text(#"{"method":"Runtime.executionContextCreated","params":{"context":{"id":20,"origin":"","auxData":{"isDefault":false,"frameId":"T1","type":"isolated"}}},"sessionId":"S1"}"#), now: 4)
        #expect(actions.isEmpty)
    }

    @Test func endpointsAreParsedStrictly() {
        #expect(CDPEndpoint("http://127.0.0.1:9222")?.port == 9222)
        #expect(CDPEndpoint("http://[::1]:9222/")?.host == "::1")
        for bad in ["ws://127.0.0.1:9222", "http://127.0.0.1", "http://:9222", "http://h:0", "http://h:70000", "127.0.0.1:9222"] {
            #expect(CDPEndpoint(bad) == nil, "\(bad)")
        }
    }

    @Test func anHTTPServerThatIsNotDevToolsIsNamedAsSuch() async throws {
        // A plain HTTP server that answers 404: the message says it is not DevTools.
        let listener = try TinyHTTPServer(answer: "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found")
        defer { listener.close() }
        #expect(throws: CaptureError.self) { _ = try CDPEndpoint(host: "127.0.0.1", port: listener.port).browserWebSocket() }
        do { _ = try CDPEndpoint(host: "127.0.0.1", port: listener.port).browserWebSocket() } catch {
            #expect(error.message.contains("answered \"HTTP/1.1 404 Not Found\": not a DevTools endpoint"), "\(error)")
        }
        let json = try TinyHTTPServer(answer: "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"a\":true}\n")
        defer { json.close() }
        do { _ = try CDPEndpoint(host: "127.0.0.1", port: json.port).browserWebSocket(); Issue.record("accepted") } catch {
            #expect(error.message.contains("is not a DevTools answer"), "\(error)")
        }
    }
}

/// Answers every connection with one fixed HTTP response, then closes it.
final class TinyHTTPServer: @unchecked Sendable {
    let fd: Int32
    let port: Int
    private var thread: Thread?

    init(answer: String) throws {
        let sock = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        fd = sock
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(sock, $0, len) } }
        listen(sock, 8)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(sock, $0, &len) } }
        port = Int(UInt16(bigEndian: addr.sin_port))
        let listenFD = sock
        let bytes = Array(answer.utf8)
        let t = Thread {
            while true {
                let c = accept(listenFD, nil, nil)
                if c < 0 { return }
                var buf = [UInt8](repeating: 0, count: 4096)
                _ = recv(c, &buf, buf.count, 0)
                _ = bytes.withUnsafeBytes { send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                Glibc.close(c)
            }
        }
        t.start()
        thread = t
    }

    func close() {
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
    }
}
