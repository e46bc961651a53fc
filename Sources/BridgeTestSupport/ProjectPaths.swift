import Foundation

/// Paths tests need: the project root, the test fixtures from outside, the built CLI.
public enum ProjectPaths {
    /// The package root (the folder holding Package.swift).
    public static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        // Sources/BridgeTestSupport/ProjectPaths.swift -> root
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    /// `Tests/Fixtures`: the corpora from outside the project (JSONTestSuite, tcpdump's
    /// captures, real WebSocket captures), with their licences (`Tests/Fixtures/README.md`).
    public static let fixtures: URL = root.appendingPathComponent("Tests/Fixtures")

    /// The fixture at `relativePath` under `Tests/Fixtures`; throws ``MissingFixture``
    /// naming the path when it does not exist, so a test fails rather than skips.
    public static func fixture(_ relativePath: String) throws -> URL {
        let url = fixtures.appendingPathComponent(relativePath)
        guard FileManager.default.fileExists(atPath: url.path) else { throw MissingFixture(path: url.path) }
        return url
    }

    /// The sorted names in the fixture folder `relativePath` that start with `prefix`;
    /// throws ``MissingFixture`` when the folder is absent.
    public static func fixtureNames(in relativePath: String, prefix: String = "") throws -> [String] {
        let dir = try fixture(relativePath)
        return try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(prefix) }.sorted()
    }

    /// The debug build of the `bridgescope` executable (built by `swift build` before tests).
    public static var binary: URL {
        let candidates = [".build/debug/bridgescope", ".build/x86_64-unknown-linux-gnu/debug/bridgescope",
                          ".build/aarch64-unknown-linux-gnu/debug/bridgescope"]
        for c in candidates {
            let u = root.appendingPathComponent(c)
            if FileManager.default.isExecutableFile(atPath: u.path) { return u }
        }
        return root.appendingPathComponent(candidates[0])
    }
}

/// A test fixture that is not where the tests expect it.
struct MissingFixture: Error, CustomStringConvertible {
    /// The absolute path that does not exist.
    public var path: String
    /// Names the path and what to do.
    public var description: String {
        "test fixture missing: \(path) (the corpora from outside the project live in Tests/Fixtures, "
            + "see Tests/Fixtures/README.md; restore them with `git checkout -- Tests/Fixtures`)"
    }
}

/// The result of running a process to completion.
public struct ProcessResult: Sendable {
    /// Exit status.
    public var status: Int32
    /// Everything written to standard output.
    public var stdout: String
    /// Everything written to standard error.
    public var stderr: String
}

/// Runs `bridgescope` with arguments and optional standard input, in `directory` (the
/// test process's own when nil); waits for it.
public func runBridgescope(_ arguments: [String], stdin: String? = nil, in directory: URL? = nil) throws -> ProcessResult {
    try runProcess(ProjectPaths.binary, arguments, stdin: stdin, in: directory)
}

/// Runs an executable with arguments and optional standard input, in `directory`, with
/// `environment` added to the test process's own; waits for it. Its `TMPDIR` is this
/// process's scratch folder (``TestScratch``), so what it leaves there (Chromium leaves
/// a folder per run) goes when the tests end.
public func runProcess(_ executable: URL, _ arguments: [String], stdin: String? = nil, in directory: URL? = nil,
                       environment: [String: String] = [:]) throws -> ProcessResult {
    let p = Process()
    p.executableURL = executable
    p.arguments = arguments
    p.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": TestScratch.root]) { $1 }.merging(environment) { $1 }
    if let directory { p.currentDirectoryURL = directory }
    let out = Pipe(), err = Pipe(), inp = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = inp
    try p.run()
    let group = DispatchGroup()
    nonisolated(unsafe) var outData = Data(), errData = Data()
    group.enter()
    DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    group.enter()
    DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    if let stdin { inp.fileHandleForWriting.write(Data(stdin.utf8)) }
    try? inp.fileHandleForWriting.close()
    p.waitUntilExit()
    group.wait()
    return ProcessResult(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
}
