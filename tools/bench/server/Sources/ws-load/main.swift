// ws-load: N concurrent WebSocket clients, each sending capability.query requests one
// after another (send, wait for the answer, repeat) for a fixed time; prints round
// trips per second and latency percentiles as one JSON line.
//
//   ws-load URL --clients N --seconds S [--deflate] [--pipeline K]  (K requests in flight per client)
import BridgeClient
import Foundation

struct Options {
    var url = "ws://127.0.0.1:8787/bridge"
    var clients = 16
    var seconds = 5.0
    var deflate = false
    var pipeline = 1
}

func parse() -> Options {
    var o = Options()
    var args = CommandLine.arguments.dropFirst().makeIterator()
    while let a = args.next() {
        switch a {
        case "--clients": o.clients = Int(args.next() ?? "") ?? o.clients
        case "--seconds": o.seconds = Double(args.next() ?? "") ?? o.seconds
        case "--deflate": o.deflate = true
        case "--pipeline": o.pipeline = max(1, Int(args.next() ?? "") ?? 1)
        default: o.url = a
        }
    }
    return o
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

let options = parse()
guard let url = WebSocketURL(options.url) else { fatalError("bad URL \(options.url)") }
let deadline = now() + UInt64(options.seconds * 1e9)

let results = await withTaskGroup(of: [UInt64].self) { group in
    for c in 0..<options.clients {
        group.addTask {
            do {
                return try await WebSocketClient.withConnection(to: url, options: .init(deflate: options.deflate)) { session in
                    var it = session.messages.makeAsyncIterator()
                    var latencies: [UInt64] = []
                    var inFlight: [String: UInt64] = [:]
                    var n = 0
                    func request() async throws {
                        n += 1
                        let id = "c\(c)-\(n)"
                        inFlight[id] = now()
                        try await session.send(#"{"version":"1.0","correlationId":"\#(id)","type":"request","timestamp":1700000000000,"payload":{"action":"capability.query"}}"#)
                    }
                    // Keep `pipeline` requests in flight; every answer (or echo) carries its id.
                    for _ in 0..<options.pipeline { try await request() }
                    while !inFlight.isEmpty {
                        guard let m = await it.next() else { return latencies }
                        let head = String(decoding: m.prefix(80), as: UTF8.self)
                        guard let r = head.range(of: #""correlationId":""#) else { continue }
                        let id = String(head[r.upperBound...].prefix { $0 != "\"" })
                        guard let t0 = inFlight.removeValue(forKey: id) else { continue }
                        latencies.append(now() - t0)
                        if now() < deadline { try await request() }
                    }
                    return latencies
                }
            } catch {
                FileHandle.standardError.write(Data("client \(c): \(error)\n".utf8))
                return []
            }
        }
    }
    var all: [UInt64] = []
    for await r in group { all += r }
    return all
}

let sorted = results.sorted()
func pct(_ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1e6
}
let rps = Double(sorted.count) / options.seconds
print(#"{"clients":\#(options.clients),"seconds":\#(options.seconds),"roundTrips":\#(sorted.count),"roundTripsPerSecond":\#(Int(rps)),"p50ms":\#(String(format: "%.3f", pct(0.5))),"p99ms":\#(String(format: "%.3f", pct(0.99))),"maxms":\#(String(format: "%.3f", pct(1.0)))}"#)
