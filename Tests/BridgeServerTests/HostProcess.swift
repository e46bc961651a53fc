import BridgeTestSupport
import Foundation
import NIOConcurrencyHelpers

/// `bridgescope host --listen 127.0.0.1:0` as a child process, so load tests can read its
/// resident memory (`/proc/PID/status`) without the test runner's own allocations.
final class HostProcess: Sendable {
    let process: Process
    let port: Int
    private let stderrLog: NIOLockedValueBox<String>

    /// Starts `bridgescope host` with `arguments`, or `command` as the whole argument list
    /// (any command that prints `listening on ws://127.0.0.1:PORT/`, such as `record --proxy`).
    /// `descriptorLimit` runs it under `prlimit --nofile=N:N` (which execs it: the pid is
    /// the command's).
    init(arguments: [String] = [], command: [String]? = nil, descriptorLimit: Int? = nil) throws {
        let process = Process()
        let argv = command ?? (["host", "--listen", "127.0.0.1:0", "--log-level", "warning"] + arguments)
        if let descriptorLimit {
            process.executableURL = URL(fileURLWithPath: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") ? "/usr/bin/prlimit" : "/bin/prlimit")
            process.arguments = ["--nofile=\(descriptorLimit):\(descriptorLimit)", ProjectPaths.binary.path] + argv
        } else {
            process.executableURL = ProjectPaths.binary
            process.arguments = argv
        }
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        self.process = process
        // Read until the startup line names the port.
        var text = ""
        var port: Int?
        let deadline = Date().addingTimeInterval(30)
        while port == nil && Date() < deadline {
            let data = err.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: "listening on ws://127.0.0.1:"),
               let end = text[range.upperBound...].firstIndex(of: "/") {
                port = Int(text[range.upperBound..<end])
            }
        }
        guard let port else {
            process.terminate()
            throw RawWebSocketClient.Failure.connect("host did not start: \(text)")
        }
        self.port = port
        let log = NIOLockedValueBox(text)
        self.stderrLog = log
        // Keep draining standard error so the host never blocks on it.
        err.fileHandleForReading.readabilityHandler = { h in
            let d = h.availableData
            // Whole lines (tests search the log), up to 8 MiB in all.
            if !d.isEmpty { log.withLockedValue { if $0.utf8.count < 8 << 20 { $0 += String(decoding: d, as: UTF8.self) } } }
        }
    }

    /// Resident set size in bytes (`VmRSS`).
    var residentBytes: Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        let kb = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        return kb * 1024
    }

    /// User plus system CPU seconds used so far (`/proc/PID/stat`).
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / 100
    }

    var log: String { stderrLog.withLockedValue { $0 } }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

/// Times a normal page: connect, upgrade, `host.ready`, a `capability.query` and its answer.
func normalExchange(port: Int) throws -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    let c = try RawWebSocketClient(port: port, receiveTimeout: 10)
    guard try c.handshake() == 101 else { throw RawWebSocketClient.Failure.badHandshake(c.responseHead) }
    _ = try c.readDataOrClose()  // host.ready
    try c.sendText(#"{"version":"1.0","correlationId":"q1","type":"request","timestamp":1700000000000,"payload":{"action":"capability.query"}}"#)
    let answer = try c.readDataOrClose()
    guard answer.text.contains("\"q1\"") else { throw RawWebSocketClient.Failure.badHandshake(answer.text) }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

/// The 90th percentile of `samples`.
func percentile90(_ samples: [Double]) -> Double {
    guard !samples.isEmpty else { return .infinity }
    let sorted = samples.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.9))]
}
