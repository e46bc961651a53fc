import BridgeFuzz
import BridgeJSON
import Testing

@Suite struct MutatorTests {
    static let seed = Corpus.load(Corpus.files("seeds").first { $0.lastPathComponent == "journey-passport.jsonl" }!).input

    @Test func oneSeedGivesOneStream() {
        func children(_ seed: UInt64) -> [FuzzInput] {
            var rng = FuzzRandom(seed: seed)
            return (0..<200).map { _ in FuzzMutator().mutate(Self.seed, other: Self.seed, &rng) }
        }
        #expect(children(9) == children(9))
        #expect(children(9) != children(10))
    }

    @Test func everyFamilyChangesTheCaseAndStaysWithinLimits() {
        var rng = FuzzRandom(seed: 1)
        for family in FuzzMutator.Family.allCases {
            var changed = 0
            for _ in 0..<300 {
                var c = Self.seed
                FuzzMutator().apply(family, to: &c, other: Self.seed, &rng)
                if c != Self.seed { changed += 1 }
                #expect(c.steps.count <= FuzzLimits.maxSteps)
            }
            #expect(changed > 200, "\(family) changed only \(changed) of 300 cases")
        }
    }

    @Test func structureAwareMutationsReachTheInterestingShapes() {
        var rng = FuzzRandom(seed: 3)
        var seen: Set<String> = []
        let decoder = BridgeProtocol.EnvelopeDecoder()
        for _ in 0..<3000 {
            let c = FuzzMutator().mutate(Self.seed, other: nil, &rng)
            for m in c.messages {
                for f in decoder.decode(m, direction: .webToHost).findings { seen.insert(f.slug) }
                if m.count > 4 && String(decoding: m, as: UTF8.self).contains("\\ud800") { seen.insert("lone-surrogate-escape") }
            }
            for s in c.steps { if case .toggle = s.kind { seen.insert("toggle") } }
            if c.steps.count > 50 { seen.insert("many-steps") }
        }
        for expected in ["duplicate-key", "malformed-json", "unsupported-version", "status-on-request", "invalid-action",
                         "empty-correlation-id", "too-deep", "timestamp-in-seconds", "lone-surrogate-escape", "toggle", "many-steps"] {
            #expect(seen.contains(expected), "never produced \(expected); saw \(seen.sorted())")
        }
    }

    @Test func plainByteModeOnlyFlipsBytesOfTheCaseFile() {
        var rng = FuzzRandom(seed: 5)
        let m = FuzzMutator(mode: .bytesOnly)
        var differ = 0
        for _ in 0..<200 where m.mutate(Self.seed, other: nil, &rng) != Self.seed { differ += 1 }
        #expect(differ > 150)
    }

    @Test func loneSurrogateMarkersBecomeEscapes() {
        var rng = FuzzRandom(seed: 11)
        var found = false
        for _ in 0..<2000 where !found {
            var c = Self.seed
            FuzzMutator().apply(.jsonTree, to: &c, other: nil, &rng)
            for m in c.messages where String(decoding: m, as: UTF8.self).contains("\\ud800") || String(decoding: m, as: UTF8.self).contains("\\udc00") {
                found = true
                #expect((try? JSONParser().parse(m)) == nil)  // the strict parser refuses it
                #expect(!String(decoding: m, as: UTF8.self).unicodeScalars.contains("\u{10FFFD}"))
            }
        }
        #expect(found)
    }
}

import BridgeProtocol
