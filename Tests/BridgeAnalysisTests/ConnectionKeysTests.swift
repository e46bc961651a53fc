@testable import BridgeAnalysis
import BridgeArchive
import BridgeProtocol
import Testing

/// Connections found by the bytes of a record's `conn` (`ConnectionKeys`) are the
/// connections found by name: past the connection cap, with names of every length, and
/// with names that share their first bytes.
struct ConnectionKeysTests {
    @Test func namesAreFoundByTheirBytesOnly() {
        var keys = ConnectionKeys()
        let names = ["c1", "c10", "c1 ", "", "0123456789abcdef", "0123456789abcdeg", "0123456789abcdef0"]
        for (slot, name) in names.enumerated() { Array(name.utf8).withUnsafeBytes { keys.add($0, slot: slot) } }
        for (slot, name) in names.enumerated() {
            let found = Array(name.utf8).withUnsafeBytes { keys.slot(of: $0) }
            #expect(found == (name.utf8.count <= ConnectionKeys.maxNameBytes ? slot : nil), "\(name)")
        }
        #expect(Array("c2".utf8).withUnsafeBytes { keys.slot(of: $0) } == nil)
        for n in 0..<100 { Array("n\(n)".utf8).withUnsafeBytes { keys.add($0, slot: 100 + n) } }
        #expect(Array("n0".utf8).withUnsafeBytes { keys.slot(of: $0) } == 100)
        #expect(Array("n99".utf8).withUnsafeBytes { keys.slot(of: $0) } == nil)  // past the 64 names kept
    }

    /// A name's two numbers are its bytes zero-padded to 16, little-endian, at every
    /// length a name kept can have (0-16 bytes), for bytes of every value.
    @Test func numbersAreTheZeroPaddedBytes() {
        var rng = SplitMix64(seed: 16)
        for n in 0...ConnectionKeys.maxNameBytes {
            for _ in 0..<50 {
                let name = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                let padded = name + [UInt8](repeating: 0, count: 16 - n)
                let low = (0..<8).reduce(UInt64(0)) { $0 | UInt64(padded[$1]) << (8 * UInt64($1)) }
                let high = (0..<8).reduce(UInt64(0)) { $0 | UInt64(padded[8 + $1]) << (8 * UInt64($1)) }
                let numbers = name.withUnsafeBytes { ConnectionKeys.numbers($0) }
                #expect(numbers.0 == low && numbers.1 == high, "\(n) bytes: \(name)")
            }
        }
    }

    /// 40 connections (short, long and look-alike names) past a cap of 5, each with a
    /// request, its answer and an event: the archive read in runs (on one thread and
    /// pipelined) gives the report of the archive read record by record.
    @Test func manyConnectionsPastTheCapGiveTheSameReport() throws {
        var events: [AnalysisEvent] = []
        var seq = 0, time: Int64 = 1_700_000_000_000_000_000
        func add(_ connection: String, _ direction: Direction, _ json: String) {
            seq += 1
            time += 1_000_000
            events.append(.message(seq: seq, time: time, direction: direction, connection: connection,
                                   bytes: Array(json.utf8)[...], record: seq))
        }
        let names = (0..<40).map { n in n % 3 == 0 ? "c\(n)" : n % 3 == 1 ? "connection-with-a-long-name-\(n)" : "c\(n % 7)x\(n)" }
        for round in 0..<3 {
            for (n, name) in names.enumerated() {
                let id = "r\(round)-\(n)", ms = time / 1_000_000
                add(name, .webToHost, #"{"version":"1.0","correlationId":"\#(id)","type":"request","timestamp":\#(ms),"payload":{"action":"capability.query"}}"#)
                add(name, .hostToWeb, #"{"version":"1.0","correlationId":"\#(id)","type":"response","timestamp":\#(ms),"payload":{"action":"capability.query","status":"success","data":{"environment":"web","hostVersion":"1","capabilities":{}}}}"#)
                add(name, .hostToWeb, #"{"version":"1.0","correlationId":"e\#(id)","type":"event","timestamp":\#(ms),"payload":{"action":"host.ready"}}"#)
            }
        }
        let bytes = try PipelinedAnalysisTests.archive(events)
        var configuration = AnalyzerConfiguration()
        configuration.limits.maxConnections = 5
        func report(_ read: (inout ArchiveEventSource, inout SessionAnalyzer) throws -> Void, readAhead: Bool = false) throws -> AnalysisReport {
            var source = try ArchiveEventSource(bytes: bytes, name: "many", readAhead: readAhead)
            var analyzer = SessionAnalyzer(source: "many", configuration: configuration)
            try read(&source, &analyzer)
            return analyzer.finish()
        }
        let reference = try report { source, analyzer in while let e = try source.next() { analyzer.feed(e) } }
        #expect(reference.connections.count == 6)  // five and the overflow
        #expect(reference.connections.last?.id == SessionAnalyzer.overflowConnection)
        #expect(try report { try $0.feedAll(to: &$1) } == reference)
        #expect(try report({ try $0.feedAll(to: &$1) }, readAhead: true) == reference)
    }
}
