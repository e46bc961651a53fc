import ArgumentParser
import BridgeArchive
import BridgeConformance
import BridgeFuzz
import Foundation

/// `bridgescope conform`: the conformance suite against one or more hosts.
struct ConformCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conform",
        abstract: "Run the numbered conformance cases against hosts; a case fails only when no legal host could have answered so.",
        discussion: """
        Each case (docs/CONFORMANCE.md) sends a fixed exchange to the host, in a fresh host \
        process or connection, and the protocol model judges what came back: pass, pass with \
        a noted legal choice (PROTOCOL.md §7), fail (the rule broken, why, and the exchange), \
        or informational. --strict judges by the reference host's own choices. Several \
        --target options compare hosts side by side (--format html). Exit status: 0 no case \
        failed, 1 a case failed, 2 usage or I/O errors.

        Examples:
          bridgescope conform
          bridgescope conform --target stdio:'node my_host.js' --format junit -o conform.xml
          bridgescope conform --target inproc --target stdio:'python3 host.py' --format html -o conform.html
        """
    )

    @Option(name: .customLong("target"), help: "inproc, ws://HOST:PORT/bridge or stdio:'COMMAND' (repeatable; default inproc).")
    var targets: [String] = []

    @Flag(help: "Judge by the reference host's choices where PROTOCOL.md §7 leaves one.")
    var strict = false

    @Option(help: "Report format: text, json, junit or html.")
    var format: String = "text"

    @Option(name: .customLong("cases"), help: "Run only the cases this pattern selects: an id (2 selects 2.1, 2.2…) or a pattern with * (repeatable).")
    var cases: [String] = []

    @Option(name: [.short, .customLong("output")], help: "Write the report here (default: standard output).")
    var output: String?

    @Option(name: .customLong("response-timeout"), help: "Black-box: milliseconds a request may wait for its final answer (default 10000).")
    var responseTimeout: Int64 = 10_000

    @Flag(name: .customLong("list"), help: "List the cases and exit.")
    var list = false

    func run() async throws {
        guard ["text", "json", "junit", "html"].contains(format) else {
            throw ValidationError("--format must be text, json, junit or html, not '\(format)'")
        }
        guard responseTimeout > 0 else { throw ValidationError("--response-timeout must be a positive number of milliseconds") }
        let selected = ConformanceSuite.select(cases)
        guard !selected.isEmpty else { throw ValidationError("--cases \(cases.joined(separator: " ")) selects no case; `bridgescope conform --list` lists them") }
        if list {
            for c in selected { print("\(c.id)\t\(c.section)\t\(c.title): \(c.expectation)") }
            return
        }
        // A host that exits while a case writes to it is a finding, not this process's death.
        signal(SIGPIPE, SIG_IGN)
        var runners: [ConformanceRunner] = []
        for text in targets.isEmpty ? ["inproc"] : targets {
            let spec: FuzzOptions.TargetSpec
            do { spec = try FuzzOptions.TargetSpec(parsing: text) } catch { throw ValidationError("--target \(text): \(error)") }
            if case .webView = spec { throw ValidationError("--target \(text): conform does not drive WebViews yet; use fuzz or replay (docs/WEBVIEW-TARGETS.md)") }
            let target = spec.makeTarget(scenario: nil, strict: strict, responseTimeoutMs: responseTimeout, maxStepDelayMs: 10_000)
            if let probing = target as? any ProbingTarget {
                do { try await probing.probe() } catch { printError("error: \(error)"); throw Exit.usage }
            }
            runners.append(ConformanceRunner(target: target, name: spec.description, strict: strict || spec == .inproc))
        }
        let out: OutputFile
        do { out = try OutputFile(path: output ?? "-") } catch { printError("error: \(error)"); throw Exit.usage }
        let tty = isatty(2) == 1
        var runs: [ConformanceRun] = []
        for r in runners {
            let total = selected.count, name = r.name
            runs.append(await r.run(selected) { done, result in
                if tty { printError("\rconform \(name): \(done)/\(total) \(result.testCase.id) \(result.verdict.name)      ", terminator: done == total ? "\n" : "") }
            })
        }
        let text: String
        switch format {
        case "json": text = ConformanceReport.json(runs)
        case "junit": text = ConformanceReport.junit(runs)
        case "html": text = ConformanceReport.html(runs)
        default: text = ConformanceReport.text(runs)
        }
        do {
            try out.write(Array(text.utf8))
            try out.commit()
        } catch {
            printError("error: \(error)")
            throw Exit.usage
        }
        if runs.contains(where: \.failed) { throw Exit.findings }
    }
}
