import BridgeJSON

/// Chooses and applies mutations: one call makes one child from a parent, stacking one
/// to four mutations from the four families with fixed weights, every choice drawn from
/// the caller's single ``FuzzRandom``.
public struct FuzzMutator: Sendable {
    /// How children are made.
    public enum Mode: String, Sendable, Hashable {
        /// The structure-aware families (JSON tree, protocol, bytes, sequence).
        case structureAware = "structure"
        /// Plain byte mutation of the serialized case file, libFuzzer style, no dictionary
        /// (the bug-finding benchmark's baseline).
        case bytesOnly = "bytes"
    }

    /// A family of mutations.
    public enum Family: String, Sendable, Hashable, CaseIterable {
        /// ``JSONTreeMutator``.
        case jsonTree = "json-tree"
        /// ``ProtocolMutator``.
        case protocolAware = "protocol"
        /// ``ByteMutator`` on one message.
        case bytes
        /// ``SequenceMutator``.
        case sequence
    }

    /// The mode.
    public var mode: Mode
    /// Whether toggles may be inserted (in-process targets only).
    public var toggles: Bool
    /// Family weights, in ``Family/allCases`` order. Default 30/30/15/25.
    var weights: [Int]

    /// Creates a mutator.
    public init(mode: Mode = .structureAware, toggles: Bool = true, weights: [Int] = [30, 30, 15, 25]) {
        self.mode = mode
        self.toggles = toggles
        self.weights = weights
    }

    /// A child of `parent` (`other` is a second corpus entry for splicing).
    public func mutate(_ parent: FuzzInput, other: FuzzInput?, _ rng: inout FuzzRandom) -> FuzzInput {
        switch mode {
        case .bytesOnly: return mutateBytes(parent, other: other, &rng)
        case .structureAware: break
        }
        var child = parent
        for _ in 0..<rng.smallCount(max: 4) {
            let family = Family.allCases[rng.weighted(weights)]
            apply(family, to: &child, other: other, &rng)
        }
        if child.byteCount > FuzzLimits.maxInputBytes { return parent }
        return child
    }

    /// Applies one mutation of `family`.
    public func apply(_ family: Family, to input: inout FuzzInput, other: FuzzInput?, _ rng: inout FuzzRandom) {
        if family == .sequence || input.messages.isEmpty {
            SequenceMutator.mutate(&input, other: other, toggles: toggles, &rng)
            return
        }
        let messageSteps = input.steps.indices.filter { input.steps[$0].message != nil }
        let i = rng.pick(messageSteps)!
        var bytes = input.steps[i].message!
        switch family {
        case .jsonTree, .protocolAware:
            if var tree = MessageWriter.parse(bytes) {
                if family == .jsonTree {
                    JSONTreeMutator.mutate(&tree, &rng)
                } else {
                    let ids = messageSteps.compactMap { $0 == i ? nil : input.steps[$0].message.flatMap(MessageWriter.correlationId) }
                    ProtocolMutator.mutate(&tree, otherIds: ids, &rng)
                }
                bytes = MessageWriter.write(tree)
            } else {
                ByteMutator().mutate(&bytes, other: other?.messages.randomElement(using: &rng), &rng)
            }
        case .bytes:
            let splice = rng.oneIn(2) ? input.messages.randomElement(using: &rng) : other?.messages.randomElement(using: &rng)
            for _ in 0..<rng.smallCount(max: 3) { ByteMutator().mutate(&bytes, other: splice, &rng) }
        case .sequence:
            break
        }
        input.steps[i].kind = .message(bytes)
    }

    /// The baseline: serialize the case file, flip its bytes, read it back.
    func mutateBytes(_ parent: FuzzInput, other: FuzzInput?, _ rng: inout FuzzRandom) -> FuzzInput {
        var bytes = FuzzCase(input: parent).serialized()
        let splice = other.map { FuzzCase(input: $0).serialized() }
        let mutator = ByteMutator(useDictionary: false, maxSize: 1 << 16)
        for _ in 0..<rng.smallCount(max: 5) { mutator.mutate(&bytes, other: splice, &rng) }
        return FuzzCase.parse(bytes).input
    }
}
