import BridgeArchive
import BridgeHost
import BridgeJSON
import BridgeProtocol
import BridgeWebSocket
import Foundation

/// The entry points of the libFuzzer targets in `tools/fuzz/` (each target's `main.swift`
/// is a one-call `@_cdecl` shim into here, like swift-protobuf's FuzzTesting). Each
/// function runs one input and traps (`fatalError`, which libFuzzer reports as a crash and
/// saves) when an oracle fails, so coverage-guided fuzzing checks the same oracles as
/// `bridgescope fuzz`.
public enum FuzzHarness {
    static let messageOracles = MessageOracles()
    static let skipInflate = getenv("BRIDGESCOPE_FUZZ_SKIP_INFLATE") != nil
    static let target = InProcessTarget()
    static let checker = target.checker()

    /// JSON parser: never traps on its own; parse → write → parse is stable; agrees with
    /// JSONSerialization on acceptance except for the known differences. (The envelope
    /// half of the round-trip oracle is `fuzz-envelope`'s job.)
    public static func jsonParser(_ data: UnsafeRawBufferPointer) {
        let bytes = Array(data)
        for v in messageOracles.jsonRoundTrip(bytes) { fail(v, bytes) }
        if let v = JSONAgreement.check(bytes) { fail(v, bytes) }
    }

    /// Envelope decoder: both directions; offsets inside the message; an envelope exactly
    /// when the decoder says so; decode → encode → decode stable. (The JSON half of the
    /// round-trip oracle is `fuzz-json`'s job.)
    public static func envelopeDecoder(_ data: UnsafeRawBufferPointer) {
        let decoder = EnvelopeDecoder()
        var webToHost: DecodeResult?
        for direction in [Direction.webToHost, .hostToWeb] {
            let r = decoder.decode(data, direction: direction)
            for f in r.findings where (f.offset ?? 0) < 0 || (f.offset ?? 0) > max(data.count, JSONLimits.default.maxInputBytes) {
                fatalError("finding offset \(f.offset!) outside a \(data.count)-byte message: \(f)")
            }
            if r.isValid && r.envelope == nil { fatalError("isValid without an envelope") }
            if direction == .webToHost { webToHost = r }
            scannerAgrees(data, direction: direction, decoded: r)
        }
        let bytes = Array(data)
        for v in messageOracles.envelopeRoundTrip(bytes, first: webToHost) { fail(v, bytes) }
    }

    /// The analyzer's fast path on the same bytes: its direct walk answers only as its
    /// general scan does, and the scanner answers only where the decoder finds nothing.
    static func scannerAgrees(_ data: UnsafeRawBufferPointer, direction: Direction, decoded r: DecodeResult) {
        var direct = EnvelopeScanner(), general = EnvelopeScanner()
        let g = general.scanGeneral(data, direction: direction)
        if let d = direct.scanDirect(data, direction: direction), d != g {
            fatalError("the direct envelope walk read \(d), the general scan \(String(describing: g))")
        }
        if let g, !r.findings.isEmpty || r.envelope?.type != g.type {
            fatalError("the envelope scanner read \(g) where the decoder reports \(r.findings.map(\.slug))")
        }
    }

    /// Host routing: the input is a case file (one message per line, docs/FUZZING.md),
    /// run against the in-process reference host with every oracle.
    public static func hostRouting(_ data: UnsafeRawBufferPointer) {
        let c = FuzzCase.parse(Array(data))
        var sink = FeatureSink()
        for v in checker.check(target.execute(c.input), features: &sink) { fail(v, Array(data)) }
    }

    /// WebSocket message assembly and permessage-deflate inflation: the input is a
    /// sequence of frames, each `flags` (bit 7 FIN, 6-4 RSV1-3, 3-0 opcode), `masked` (bit
    /// 0), `length` (one byte), payload. Bit 0 of the first byte chooses deflate, bit 1 the
    /// server's masking rule.
    ///
    /// With `BRIDGESCOPE_FUZZ_SKIP_INFLATE` set, compressed messages are not inflated: the
    /// nightly script sets it while corpus/known-bugs/websocket/ holds an inflate hang, so
    /// the known bug does not stop the rest of this target from being fuzzed.
    public static func messageAssembler(_ data: UnsafeRawBufferPointer) {
        guard let first = data.first else { return }
        let deflate = first & 1 != 0, requireMasking = first & 2 != 0
        let maxMessage = 4096
        var assembler = MessageAssembler(maxMessageBytes: maxMessage, deflate: deflate, requireMasking: requireMasking)
        let inflater = deflate && !skipInflate ? try? PerMessageDeflate(agreement: DeflateAgreement(), maxMessageBytes: maxMessage, isServer: true) : nil
        var i = 1
        var failed = false
        while i + 3 <= data.count {
            let flags = data[i], masked = data[i + 1] & 1 != 0, length = Int(data[i + 2])
            i += 3
            let payload = Array(data[i..<min(data.count, i + length)])
            i += length
            let header = MessageAssembler.FrameHeader(fin: flags & 0x80 != 0, rsv1: flags & 0x40 != 0, rsv2: flags & 0x20 != 0,
                                                      rsv3: flags & 0x10 != 0, opcode: .init(rawValue: flags & 0x0F),
                                                      masked: masked)
            let action = assembler.receive(header: header, payload: payload)
            switch action {
            case .fail, .peerClosed:
                failed = true
            case .message(_, let compressed, let payload):
                if failed { fatalError("a message after the connection failed or closed") }
                if payload.count > maxMessage { fatalError("a \(payload.count)-byte message over the \(maxMessage)-byte limit") }
                if compressed {
                    if !deflate { fatalError("a compressed message without permessage-deflate") }
                    if let out = try? inflater?.inflate(payload), out.count > maxMessage {
                        fatalError("inflated to \(out.count) bytes, over the \(maxMessage)-byte limit")
                    }
                }
            case .ping(let p):
                if p.count > 125 { fatalError("a ping payload of \(p.count) bytes") }
            case .none:
                break
            }
        }
    }

    /// Session archive reader: any bytes as a `.bsz` file. Opening may fail (with an
    /// error, never a trap); once open, reading ends, with records in `seq` order, and
    /// never yields more items than the input could hold; and the tap log that
    /// `export --jsonl` writes from runs of plain lines (the trusted tail, the verbatim
    /// copy of a line's tail) is byte for byte the one written reading by reading (the
    /// input read twice: once by readings, once by runs).
    public static func archiveReader(_ data: UnsafeRawBufferPointer) {
        let bytes = Array(data)
        guard let reader = try? ArchiveReader(source: MemoryByteSource(bytes, name: "fuzz"), maxLineBytes: 1 << 20) else { return }
        var items = 0
        var lastSeq = Int.min
        var byReadings: [UInt8] = []
        var exporter = TapLogExporter()
        while let reading = reader.nextReading() {
            items += 1
            if items > maxArchiveItems { fatalError("the archive reader yielded over \(maxArchiveItems) items from \(data.count) bytes") }
            if case .record(let r, _) = reading {
                if r.seq <= lastSeq && reader.findings.isEmpty {
                    fatalError("record seq \(r.seq) after \(lastSeq) with no finding")
                }
                lastSeq = r.seq
            }
            if case .finding = reading { continue }
            exporter.write(reading: reading, into: &byReadings)
        }
        tapLogByRuns(bytes, expected: byReadings)
    }

    /// The most items ``archiveReader(_:)`` lets an input yield: zstd can expand a little
    /// input a lot, but not without bound at these sizes.
    static let maxArchiveItems = 1_000_000

    /// The tap log of the archive `bytes` written from runs of plain lines, as
    /// `export --jsonl` writes it, against `expected`, the one written reading by reading.
    static func tapLogByRuns(_ bytes: [UInt8], expected: [UInt8]) {
        guard let runs = try? ArchiveReader(source: MemoryByteSource(bytes, name: "fuzz"), maxLineBytes: 1 << 20) else {
            fatalError("the archive opened once and not again")
        }
        var byRuns: [UInt8] = []
        var exporter = TapLogExporter()
        var items = 0
        while let r = runs.nextReading(accept: TapLogExporter.acceptsVerbatim, plain: { run, lines in
            run.withUnsafeBytes { run in exporter.write(plainLines: lines, in: run, into: &byRuns) }
        }) {
            items += 1
            if items > maxArchiveItems { fatalError("read by runs, the archive yielded over \(maxArchiveItems) items") }
            if case .finding = r { continue }
            exporter.write(reading: r, into: &byRuns)
        }
        if byRuns != expected {
            let at = zip(byRuns, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(byRuns.count, expected.count)
            fatalError("export --jsonl by runs differs from reading by reading at byte \(at): \(byRuns.count) and \(expected.count) bytes")
        }
    }

    /// `LLVMFuzzerCustomMutator` for the case targets: the structure-aware mutator on the
    /// case file the bytes hold. Returns the new size.
    public static func mutateCase(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
        guard let data else { return 0 }
        var rng = FuzzRandom(seed: UInt64(seed) | 0x1_0000_0000)
        let parent = FuzzCase.parse(Array(UnsafeBufferPointer(start: data, count: size))).input
        let child = FuzzMutator(toggles: true).mutate(parent.steps.isEmpty ? seedCase : parent, other: nil, &rng)
        return copy(FuzzCase(input: child).serialized(), to: data, maxSize: maxSize)
    }

    /// `LLVMFuzzerCustomMutator` for the one-message targets (JSON, decoder): JSON-tree,
    /// protocol and byte mutations of the message the bytes hold.
    public static func mutateMessage(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
        guard let data else { return 0 }
        var rng = FuzzRandom(seed: UInt64(seed) | 0x2_0000_0000)
        let message = size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : seedCase.messages[0]
        var input = FuzzInput(messages: [message])
        let mutator = FuzzMutator(toggles: false, weights: [40, 40, 20, 0])
        for _ in 0..<rng.smallCount(max: 3) {
            mutator.apply(FuzzMutator.Family.allCases[rng.weighted(mutator.weights)], to: &input, other: nil, &rng)
        }
        return copy(input.messages.first ?? [], to: data, maxSize: maxSize)
    }

    static let seedCase = FuzzInput(messages: [
        MessageWriter.envelope(id: "q-1", type: "request", action: "capability.query"),
        MessageWriter.envelope(id: "d-1", type: "request", action: "camera.document.capture"),
    ])

    static func copy(_ bytes: [UInt8], to data: UnsafeMutablePointer<UInt8>, maxSize: Int) -> Int {
        let n = min(bytes.count, maxSize)
        bytes.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: n) }
        return n
    }

    static func fail(_ v: Violation, _ input: [UInt8]) -> Never {
        fatalError("\(v.oracle) [\(v.signature)]: \(v.message.prefix(500))")
    }
}
