import BridgeFuzz
import BridgeTestSupport
import Foundation

/// Paths and loaders shared by the fuzzer's tests.
enum Corpus {
    static let root = ProjectPaths.root.appendingPathComponent("corpus")

    /// Every `*.jsonl` file directly under `corpus/<folder>`, sorted.
    static func files(_ folder: String) -> [URL] {
        let dir = root.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".jsonl") }.sorted().map { dir.appendingPathComponent($0) }
    }

    static func load(_ url: URL) -> FuzzCase {
        FuzzCase.parse([UInt8](FileManager.default.contents(atPath: url.path) ?? Data()))
    }
}

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// Runs a process; kills it after `seconds`.
func runWithTimeout(_ executable: URL, _ arguments: [String], seconds: Double) throws -> (status: Int32, timedOut: Bool, output: String) {
    let p = Process()
    p.executableURL = executable
    p.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    env["SWIFT_BACKTRACE"] = "enable=no"
    p.environment = env
    let out = Pipe()
    p.standardOutput = out
    p.standardError = out
    try p.run()
    let deadline = Date().addingTimeInterval(seconds)
    while p.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    let timedOut = p.isRunning
    if timedOut { p.terminate(); Thread.sleep(forTimeInterval: 0.2); if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
    p.waitUntilExit()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    return (p.terminationStatus, timedOut, String(decoding: data, as: UTF8.self))
}
