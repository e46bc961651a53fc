@testable import BridgeAnalysis
import BridgeProtocol
import Testing

/// `MessageFacts` keeps the status, the error code and the direction as numbers: the
/// numbers the rules test are those of the known tables, and what the slow path reads
/// outside them comes back as it was read.
struct MessageFactsTests {
    @Test func theNumbersTheRulesTestAreThoseOfTheKnownTables() {
        #expect(MessageFacts.number(Status.success, in: Status.known) == MessageFacts.successNumber)
        #expect(MessageFacts.number(Status.error, in: Status.known) == MessageFacts.errorNumber)
        #expect(MessageFacts.number(Status.acknowledged, in: Status.known) == MessageFacts.acknowledgedNumber)
        #expect(MessageFacts.number(ErrorCode.busy, in: ErrorCode.known) == MessageFacts.busyNumber)
        // The tables are small enough that no known value takes the "other" number.
        #expect(Status.known.count < Int(MessageFacts.otherNumber) - 1)
        #expect(ErrorCode.known.count < Int(MessageFacts.otherNumber) - 1)
        #expect(MessageFacts.number(Status?.none, in: Status.known) == 0)
        #expect(MessageFacts.number(Status(rawValue: "Success"), in: Status.known) == MessageFacts.otherNumber)
    }

    @Test func everyKnownValueComesBackFromItsNumber() {
        for (k, status) in Status.known.enumerated() {
            var facts = MessageFacts(kind: .response, way: .hostToWeb, time: 0, record: 1)
            facts.set(status: status, errorCode: ErrorCode.known[k], direction: .hostToWeb)
            #expect(facts.status == status)
            #expect(facts.errorCode == ErrorCode.known[k])
            #expect(facts.decoded == nil, "a known value needs no box")
        }
    }

    @Test func whatTheSlowPathReadsOutsideTheTablesComesBackAsItWasRead() {
        var facts = MessageFacts(kind: .response, way: MessageWay(Direction(rawValue: "x2y")), time: 0, record: 1)
        facts.set(status: Status(rawValue: "done"), errorCode: ErrorCode(rawValue: "E_WEIRD"), direction: Direction(rawValue: "x2y"))
        #expect(facts.status == Status(rawValue: "done"))
        #expect(facts.errorCode == ErrorCode(rawValue: "E_WEIRD"))
        #expect(facts.direction == Direction(rawValue: "x2y"))
        #expect(facts.statusNumber == MessageFacts.otherNumber)
        var none = MessageFacts(kind: .event, way: .webToHost, time: 0, record: 2)
        none.set(status: nil, errorCode: nil, direction: .webToHost)
        #expect(none.status == nil && none.errorCode == nil && none.direction == .webToHost)
        none.id = "r1"
        #expect(none.id == "r1")
        // The fast path keeps the scan's numbers beside another direction.
        var scanned = MessageFacts(kind: .response, way: .other, statusNumber: MessageFacts.successNumber, time: 0, record: 3)
        scanned.set(otherDirection: Direction(rawValue: "w2w"))
        #expect(scanned.status == .success && scanned.direction == Direction(rawValue: "w2w"))
    }

    @Test func aMessageKindByIndexIsTheKindOfThatType() {
        for (k, type) in MessageType.known.enumerated() {
            #expect(MessageKind(knownIndex: k) == MessageKind(type))
            #expect(MessageKind(knownIndex: k, in: MessageKind.byKnownIndex) == MessageKind(type))
        }
        #expect(MessageKind(MessageType(rawValue: "notify")) == MessageKind.none)
    }
}
