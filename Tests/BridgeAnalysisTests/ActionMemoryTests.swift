@testable import BridgeAnalysis
import BridgeProtocol
import Testing

/// ``ActionMemory`` behaves as the `[String: Value]` it replaced, and ``ActionKind``
/// names the same kind by the scanner's index as by the action's name.
struct ActionMemoryTests {
    static let actions: [String] = Action.known.map(\.rawValue) + ["app.ping", "?", "nfc.reads", "camera.document"]

    @Test func randomWritesReadsAndRemovalsMatchADictionary() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            var memory = ActionMemory<Int>(), reference: [String: Int] = [:]
            for step in 0..<400 {
                let action = Self.actions.randomElement(using: &rng)!
                let kind = ActionKind(action)
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<4:
                    memory[action, kind] = step
                    reference[action] = step
                case 4..<7:
                    #expect(memory.removeValue(for: action, kind: kind) == reference.removeValue(forKey: action))
                case 7:
                    memory[action, kind] = nil
                    reference[action] = nil
                case 8:
                    if Int.random(in: 0..<8, using: &rng) == 0 {
                        memory.removeAll()
                        reference.removeAll()
                    }
                default:
                    #expect(memory[action, kind] == reference[action])
                }
                #expect(memory.count == reference.count && memory.isEmpty == reference.isEmpty)
            }
            for action in Self.actions { #expect(memory[action, ActionKind(action)] == reference[action]) }
        }
    }

    @Test func aKindByIndexIsTheKindByName() {
        for (k, action) in Action.known.enumerated() {
            #expect(ActionKind(knownIndex: k) == ActionKind(action.rawValue))
        }
        #expect(ActionKind(knownIndex: nil) == .other)
        #expect(ActionKind("app.ping") == .other && ActionKind(Action.hostOrientation.rawValue) == .other)
        #expect(ActionKind(Action.documentCapture.rawValue).isTypedSlot && ActionKind(Action.selfieCapture.rawValue).isTypedSlot)
        #expect(!ActionKind(Action.nfcRead.rawValue).isTypedSlot)
        #expect(ActionKind.count == 12)
    }
}
