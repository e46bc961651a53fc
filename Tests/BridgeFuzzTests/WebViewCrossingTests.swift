@testable import BridgeFuzz
import BridgeTransport
import Foundation
import Synchronization
import Testing

/// A WebView target's case (``WebViewTarget``, WebViewTarget+Case.swift) judges what
/// crossed the page's bridge, never what the fuzzer meant to send: each message's place
/// in the trace holds what the page reported as crossed (iOS: the posted object as
/// text), a message the shape cannot carry leaves no trace, and a page that throws is
/// the page going away. The page here is a stand-in that reports what an iOS page would.
struct WebViewCrossingTests {
    /// A page whose bridge reports what `crossing` says for each post (nil: the page threw).
    final class StandInPage: PageBridge {
        let answers: AsyncStream<[UInt8]>
        let answersIn: AsyncStream<[UInt8]>.Continuation
        let crossing: @Sendable ([UInt8]) -> PagePost?
        let posted = Mutex<[[UInt8]]>([])

        init(crossing: @escaping @Sendable ([UInt8]) -> PagePost?) {
            self.crossing = crossing
            (answers, answersIn) = AsyncStream.makeStream(of: [UInt8].self)
        }

        func post(_ message: [UInt8]) -> Task<PagePost, any Error> {
            posted.withLock { $0.append(message) }
            let outcome = crossing(message)
            return Task {
                guard let outcome else { throw PageThrew() }
                return outcome
            }
        }
        func reload() async throws {}
        var documentIsFresh: Bool { false }
        var failure: String? { nil }
        var shape: String { "ios" }
        func close() { answersIn.finish() }
    }

    struct PageThrew: Error {}

    /// What `JSON.stringify(JSON.parse(text))` makes of the messages below: the first of
    /// two `correlationId` members goes (the last value wins, in the first one's place,
    /// which here is the same text), 2^53+1 becomes 2^53, a JSON string is not posted.
    static func iOSCrossing(_ bytes: [UInt8]) -> PagePost? {
        let text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("\"") { return .notSent("a string: how a host reads a posted string the protocol leaves open") }
        if text.contains("THROW") { return nil }
        var out = text.replacingOccurrences(of: "9007199254740993", with: "9007199254740992")
        let key = #""correlationId":""#
        if let first = out.range(of: key), let second = out.range(of: key, range: first.upperBound..<out.endIndex) {
            // Keep the last value in the first member's place.
            let lastValue = out[second.upperBound...].prefix { $0 != "\"" }
            let firstValue = out[first.upperBound...].prefix { $0 != "\"" }
            out.replaceSubrange(second.lowerBound..<out.index(second.upperBound, offsetBy: lastValue.count + 1), with: "")
            if out.hasSuffix(",}") { out = String(out.dropLast(2)) + "}" }
            out = out.replacingOccurrences(of: key + firstValue + "\"", with: key + lastValue + "\"")
        }
        return .crossed(Array(out.utf8))
    }

    func target(_ page: StandInPage) -> WebViewTarget {
        var t = WebViewTarget(spec: "webkit:http://127.0.0.1:9#stand-in", scenario: nil, open: { _ in page })
        t.responseTimeoutMs = 50
        return t
    }

    func sent(_ trace: Trace) -> [(step: Int, text: String)] {
        trace.events.compactMap { if case .sent(let s, let b, _) = $0 { return (s, String(decoding: b, as: UTF8.self)) } else { return nil } }
    }

    @Test func theTraceHoldsWhatCrossedAndNothingForWhatDidNot() async throws {
        let page = StandInPage(crossing: Self.iOSCrossing)
        let input = FuzzInput(messages: [
            Array(#"{"version":"1.0","correlationId":"a","type":"request","payload":{"action":"device.info"},"correlationId":"b"}"#.utf8),
            Array(#""{\"version\":\"1.0\"}""#.utf8),
            Array(#"{"version":"1.0","correlationId":"c","type":"event","payload":{"event":"x","data":{"n":9007199254740993}}}"#.utf8),
        ])
        let trace = await target(page).run(input)
        let posted = page.posted.withLock { $0 }.map { String(decoding: $0, as: UTF8.self) }
        #expect(posted.count == 3, "every message is offered to the page; the page decides")
        let events = sent(trace)
        #expect(events.map(\.step) == [0, 2], "the JSON string was not posted: no place in the trace")
        // The ids carry the case's suffix; what crossed has one id, the last one written.
        #expect(events.first?.text.components(separatedBy: "correlationId").count == 2, "\(events)")
        #expect(events.first?.text.contains(#""correlationId":"b~"#) == true, "\(events)")
        #expect(events.first.map { Self.iOSCrossing(Array(posted[0].utf8)) == .crossed(Array($0.text.utf8)) } == true)
        #expect(events.last?.text.contains("9007199254740992") == true && events.last?.text.contains("993") == false)
        #expect(trace.targetFailure == nil, "\(trace.targetFailure ?? "")")
    }

    @Test func anAndroidPageIsJudgedOnTheBytesItWasGiven() async throws {
        let page = StandInPage { .crossed($0) }
        let messages = [#"{"a":1,"a":2}"#, "not json", #""a string""#].map { Array($0.utf8) }
        let trace = await target(page).run(FuzzInput(messages: messages))
        #expect(sent(trace).map(\.text) == messages.map { String(decoding: $0, as: UTF8.self) })
    }

    @Test func aPageThatThrowsIsThePageGoingAway() async throws {
        let page = StandInPage(crossing: Self.iOSCrossing)
        let t = target(page)
        let trace = await t.run(FuzzInput(messages: [Array(#"{"THROW":1}"#.utf8)]))
        #expect(trace.targetFailure?.contains("went away during the case") == true, "\(trace.targetFailure ?? "nil")")
        #expect(t.lost != nil)
        #expect(sent(trace).isEmpty)
    }
}
