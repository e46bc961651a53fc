import BridgeTestSupport
import Foundation
import Testing

/// The project's JavaScript tests, run by node's own test runner (`node --test FOLDER`), so
/// that `make test` runs them: the JavaScript tap and the journey shim
/// (tools/taps/js/test/: the tap's lines, the shim's conversions, the `webkitConvert` block
/// both carry) and the third host (tools/hosts/node). A failing JavaScript test fails this
/// suite with node's report. Skipped without node, unless `make test` requires it
/// (BRIDGESCOPE_REQUIRE_BROWSER): then it fails.
@Suite(.enabled(if: RequiredTools.nodeEnabled, "node is not installed (tools/setup.sh installs it)"))
struct JavaScriptSuiteTests {
    /// A folder of node tests, the fewest tests it holds, and tests that must be among those
    /// passed (by their names).
    struct Folder: CustomStringConvertible, Sendable {
        var path: String
        var atLeast: Int
        var mustPass: [String] = []
        var description: String { path }
    }

    static let folders = [
        Folder(path: "tools/taps/js/test", atLeast: 37, mustPass: [
            "a BigInt member: the line keeps the correlation id and says what crossed",
            "the Android shape sends the page's string unchanged",
            "the tap and the shim carry byte-identical webkit-convert blocks",
        ]),
        Folder(path: "tools/hosts/node", atLeast: 26),
    ]

    @Test(arguments: folders)
    func nodeTestsPass(_ folder: Folder) throws {
        let node = try #require(RequiredTools.node, "node is not installed: make test requires it (BRIDGESCOPE_REQUIRE_BROWSER)")
        let r = try runProcess(URL(fileURLWithPath: node), ["--test", "--test-reporter=tap", folder.path + "/"], in: ProjectPaths.root)
        let report = r.stdout + (r.stderr.isEmpty ? "" : "\n" + r.stderr)
        #expect(r.status == 0, "node --test \(folder.path)/ failed (exit \(r.status)):\n\(failures(report))")
        let counts = Self.counts(r.stdout)
        #expect(counts["fail"] == 0 && counts["cancelled"] == 0, "\(counts)\n\(failures(report))")
        #expect((counts["pass"] ?? 0) >= folder.atLeast,
                "node ran \(counts["pass"] ?? 0) passing tests in \(folder.path), expected at least \(folder.atLeast):\n\(report.suffix(4000))")
        let passed = Set(r.stdout.split(separator: "\n").compactMap { line -> String? in
            let line = line.trimmingCharacters(in: .whitespaces)
            guard line.hasPrefix("ok "), let dash = line.range(of: " - ") else { return nil }
            return String(line[dash.upperBound...])
        })
        for name in folder.mustPass {
            #expect(passed.contains(name), "not among the passing tests of \(folder.path): \(name)")
        }
    }

    /// The report's closing counts (`# pass 37`, `# fail 0`, ...).
    static func counts(_ tap: String) -> [String: Int] {
        var out: [String: Int] = [:]
        for line in tap.split(separator: "\n") where line.hasPrefix("# ") {
            let parts = line.dropFirst(2).split(separator: " ")
            if parts.count == 2, let n = Int(parts[1]) { out[String(parts[0])] = n }
        }
        return out
    }

    /// The failing tests' part of node's report (each `not ok` with its details), or the
    /// report's end when there is none (node itself failed).
    func failures(_ report: String) -> String {
        let lines = report.split(separator: "\n", omittingEmptySubsequences: false)
        var out: [Substring] = []
        var inFailure = false
        for line in lines {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("not ok ") { inFailure = true } else if trimmed.hasPrefix("ok ") || trimmed.hasPrefix("# Subtest") { inFailure = false }
            if inFailure { out.append(line) }
        }
        let text = out.isEmpty ? String(report.suffix(6000)) : out.joined(separator: "\n")
        return String(text.prefix(12_000))
    }
}

/// `make test` sets BRIDGESCOPE_REQUIRE_BROWSER=1: the browser and node tests then fail
/// rather than skip when their programs are missing; this says which is missing.
@Suite(.enabled(if: RequiredTools.browserRequired, "BRIDGESCOPE_REQUIRE_BROWSER is not set"))
struct RequiredToolsTests {
    @Test func chromiumAndNodeAreInstalled() {
        #expect(RequiredTools.chromium != nil, "no Chromium at \(RequiredTools.chromiumCandidates): run tools/setup.sh --with-browser")
        #expect(RequiredTools.node != nil, "node is not installed: run tools/setup.sh")
    }
}
