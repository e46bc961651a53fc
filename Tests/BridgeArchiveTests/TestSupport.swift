import BridgeTestSupport
import BridgeArchive
import Foundation
import Synchronization
import BridgeClock

/// A temporary directory removed when the value is released.
final class TemporaryDirectory: Sendable {
    let path: String

    init() {
        let base = TestScratch.rootURL.path
        path = base + "/bsz-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func file(_ name: String) -> String { path + "/" + name }
}

/// A clock the test moves by hand.
struct ManualClock {
    let virtual = VirtualClock()
    let clock: Stopwatch

    init() { clock = Stopwatch(virtual) }

    var now: UInt64 { clock.now() }

    func advance(milliseconds: UInt64) {
        virtual.advance(by: Int64(milliseconds))
    }
}

/// Paths of the project, derived from this file's location.
enum Paths {
    /// Tests/BridgeArchiveTests/TestSupport.swift → the package root.
    static let packageRoot: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }()

    static let fixtures = packageRoot + "/Tests/BridgeArchiveTests/Fixtures"

    /// Finds an executable on PATH.
    static func tool(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let p = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }
}

/// Deterministic generator (SplitMix64), so failures reproduce.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Builds envelope-like messages of a sample journey.
enum Sessions {
    static let header = ArchiveHeader(source: "test:generated", host: "testhost", filter: nil,
                                      startTime: 1_700_000_000_000_000_000, toolVersion: "0.1.0-test")

    /// The n-th message of a synthetic session: requests, responses and events, some
    /// with base64 image data, in both directions.
    static func message(_ i: Int, rng: inout SeededRandom) -> (ArchiveDirection, String, [UInt8]) {
        let ts = 1_700_000_000_000 + i * 37
        let id = "req-\(i / 2)-\(rng.next() % 100_000)"
        let actions = ["capability.query", "camera.document.capture", "camera.selfie.capture", "nfc.read"]
        let action = actions[i / 2 % actions.count]
        let conn = "c\(i % 3)"
        if i % 10 == 9 {
            return (.hostToWeb, conn, Array(#"{"version":"1.0","correlationId":"ios-event-\#(id)","type":"event","timestamp":\#(ts),"payload":{"action":"host.orientation","data":{"orientation":"portrait"}}}"#.utf8))
        }
        if i % 2 == 0 {
            return (.webToHost, conn, Array(#"{"version":"1.0","correlationId":"\#(id)","type":"request","timestamp":\#(ts),"payload":{"action":"\#(action)","data":{"documentType":"passport","side":"front"}}}"#.utf8))
        }
        var image = ""
        if i % 7 == 1 {
            var raw = [UInt8](repeating: 0, count: 300 + Int(rng.next() % 600))
            for k in raw.indices { raw[k] = UInt8(truncatingIfNeeded: rng.next()) }
            image = #","imageData":""# + Data(raw).base64EncodedString() + #"""#
        }
        return (.hostToWeb, conn, Array(#"{"version":"1.0","correlationId":"\#(id)","type":"response","timestamp":\#(ts),"payload":{"action":"\#(action)","status":"success","data":{"width":640,"height":480,"mimeType":"image/png"\#(image)}}}"#.utf8))
    }

    /// Writes `count` generated messages and finishes; returns what was written.
    @discardableResult
    static func write(to path: String, count: Int, seed: UInt64 = 1, options: ArchiveWriterOptions = .init(),
                      clock: Stopwatch = .monotonic, flushEach: Bool = false,
                      afterEach: ((ArchiveWriter) -> Void)? = nil) throws -> [ArchiveRecord] {
        var rng = SeededRandom(seed: seed)
        let writer = try ArchiveWriter(path: path, header: header, options: options, clock: clock)
        var out: [ArchiveRecord] = []
        for i in 0..<count {
            let (dir, conn, bytes) = message(i, rng: &rng)
            let t = header.startTime + Int64(i) * 1_000_000
            let seq = try writer.append(time: t, direction: dir, connection: conn, payload: bytes)
            out.append(ArchiveRecord(seq: seq, time: t, direction: dir, connection: conn, payload: bytes))
            if flushEach { try writer.flush() }
            afterEach?(writer)
        }
        try writer.finish(endTime: header.startTime + Int64(count) * 1_000_000)
        return out
    }
}

extension ArchiveReader {
    /// Reads everything: records, events, findings.
    func drain() -> (records: [ArchiveRecord], events: [ArchiveEvent], findings: [ArchiveFinding]) {
        var r: [ArchiveRecord] = [], e: [ArchiveEvent] = [], f: [ArchiveFinding] = []
        for item in self {
            switch item {
            case .record(let x): r.append(x)
            case .event(let x): e.append(x)
            case .finding(let x): f.append(x)
            case .trailer: break
            }
        }
        return (r, e, f)
    }
}

func readFile(_ path: String) -> [UInt8] {
    Array(FileManager.default.contents(atPath: path) ?? Data())
}

/// `count` copies of `bytes`, each with one to three bits flipped at random places
/// (`seed` fixes them): the damaged inputs the readers' differential tests share.
func bitFlippedCopies(of bytes: [UInt8], count: Int, seed: UInt64) -> [[UInt8]] {
    var rng = SeededRandom(seed: seed)
    return (0..<count).map { _ in
        var damaged = bytes
        for _ in 0..<(1 + Int(rng.next() % 3)) {
            let at = Int(rng.next() % UInt64(bytes.count))
            damaged[at] ^= UInt8(1) << UInt8(rng.next() % 8)
        }
        return damaged
    }
}
