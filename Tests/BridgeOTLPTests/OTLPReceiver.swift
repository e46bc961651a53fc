import BridgeTestSupport
import Foundation

/// The test receiver that is not ours: `tools/otlp/receiver.py`, which decodes every
/// request with the official `opentelemetry-proto` classes from PyPI. The package is
/// installed once per build folder with pip into `.build/otlp-python` (`--target`:
/// nothing outside the checkout changes).
final class OTLPReceiver: @unchecked Sendable {
    /// The Python interpreter the tests use.
    static let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let packages = ProjectPaths.root.appendingPathComponent(".build/otlp-python")

    /// Installs `opentelemetry-proto` into `.build/otlp-python` unless it is there.
    /// Returns nil when ready, else pip's complaint.
    static let installation: String? = {
        guard let python else { return "python3 is missing (tools/setup.sh installs it)" }
        let probe = try? runProcess(URL(fileURLWithPath: python), ["-c", "import opentelemetry.proto.collector.trace.v1.trace_service_pb2"],
                                    environment: ["PYTHONPATH": packages.path])
        if probe?.status == 0 { return nil }
        let staging = packages.path + ".tmp-\(getpid())"
        let r = try? runProcess(URL(fileURLWithPath: python), [
            "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-warn-script-location",
            "--target", staging, "opentelemetry-proto>=1.20",
        ])
        guard let r, r.status == 0 else {
            try? FileManager.default.removeItem(atPath: staging)
            return "pip could not install opentelemetry-proto from PyPI: \(r?.stderr.suffix(400) ?? "pip did not run")"
        }
        try? FileManager.default.removeItem(at: packages)
        try? FileManager.default.moveItem(atPath: staging, toPath: packages.path)
        return nil
    }()

    /// True unless pip could not reach PyPI (then the tests say so and are skipped).
    static var available: Bool {
        guard let problem = installation else { return true }
        let offline = ["NewConnectionError", "Temporary failure in name resolution", "Network is unreachable",
                       "No matching distribution found", "Could not fetch URL"]
        return !offline.contains { problem.contains($0) }
    }

    let process = Process()
    let stdin = Pipe(), stdout = Pipe()
    let port: Int
    let spansFile: URL

    /// Starts a receiver with extra `arguments` (`--fail 2`, `--hang`, `--reject 1`).
    init(_ arguments: [String] = []) throws {
        if let problem = Self.installation { throw ReceiverError(problem) }
        spansFile = TestScratch.rootURL.appendingPathComponent("otlp-spans-\(UUID().uuidString).jsonl")
        process.executableURL = URL(fileURLWithPath: Self.python!)
        process.arguments = [ProjectPaths.root.appendingPathComponent("tools/otlp/receiver.py").path,
                             "--port", "0", "--out", spansFile.path, "--stdin-eof-stops"] + arguments
        var env = ProcessInfo.processInfo.environment
        env["PYTHONPATH"] = Self.packages.path
        process.environment = env
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { throw ReceiverError("the receiver exited before listening") }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("listening "), let p = Int(text.dropFirst("listening ".count)) else {
            throw ReceiverError("the receiver said \(text)")
        }
        port = p
    }

    /// The URL to export to.
    var url: String { "http://127.0.0.1:\(port)" }

    /// Stops the receiver; returns its summary line and the spans it decoded.
    func stop() throws -> (summary: String, spans: [[String: Any]]) {
        try? stdin.fileHandleForWriting.close()
        let rest = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let data = (try? Data(contentsOf: spansFile)) ?? Data()
        try? FileManager.default.removeItem(at: spansFile)
        let spans = try data.split(separator: UInt8(ascii: "\n")).map {
            try JSONSerialization.jsonObject(with: Data($0)) as! [String: Any]
        }
        return (String(decoding: rest, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), spans)
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}

/// A receiver that could not start.
struct ReceiverError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
