import ArgumentParser
import BridgeAnalysis
import BridgeJSON
import BridgeProtocol
import Foundation

/// `bridgescope validate`: check envelope files against RFC 8259 and the rule catalogue.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check envelope files against RFC 8259 and the protocol rules.",
        discussion: """
        Inputs are judged by their content: a file of envelopes (one per line when it ends \
        in .jsonl or .ndjson or with --lines, otherwise one JSON text; on standard input, \
        one per line when the first line is a whole JSON object), a tap log (the message of each line) or a session \
        archive (the message of each record, placed by record number). `-` reads standard \
        input. Exit status: 0 when no error-severity finding, 1 when any, 2 on usage or \
        I/O errors.

        Example: bridgescope validate captures/sample-broken.jsonl
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, jsonl
    }

    @Option(help: "Output format: text (compiler-style diagnostics) or jsonl (one object per finding).")
    var format: Format = .text

    @Flag(help: "Check RFC 8259 syntax only, not the envelope rules.")
    var syntaxOnly = false

    @Flag(help: "Treat every file as one envelope per line.")
    var lines = false

    @Argument(help: ArgumentHelp("Files to validate (`-`: standard input).", valueName: "FILE"))
    var files: [String]

    func run() throws {
        var anyError = false
        var ioError = false
        var totalMessages = 0
        var totalFindings = 0
        let validator = InputValidator(lines: lines, syntaxOnly: syntaxOnly)
        for file in files {
            let result: InputValidator.Result
            do throws(AnalysisError) {
                result = try validator.validate(path: file)
            } catch {
                printError("error: \(error.message)")
                ioError = true
                continue
            }
            let shown = file == "-" ? "<stdin>" : file
            totalMessages += result.messages
            totalFindings += result.items.count
            anyError = anyError || result.hasErrors
            for item in result.items {
                let f = item.finding
                switch format {
                case .text:
                    let place = item.unit == "record" ? "record \(item.number):\(item.column)" : "\(item.number):\(item.column)"
                    print("\(shown):\(place): \(f.severity): \(f.message) [\(f.rule) \(f.slug)]")
                case .jsonl:
                    let obj: JSONValue = [
                        "file": .string(shown), item.unit: .integer(Int64(item.number)), "offset": .integer(Int64(item.offset)), "rule": .string(f.rule.rawValue), "slug": .string(f.slug),
                        "severity": .string(f.severity.rawValue), "message": .string(f.message),
                    ]
                    print(JSONWriter().string(obj))
                }
            }
            if result.kind == .tapLog || result.kind == .archive, format == .text {
                printError("note: \(shown) is \(result.kind): validated the message of each \(result.kind == .archive ? "record" : "line")")
            }
        }
        if format == .text {
            printError("\(files.count) file(s), \(totalMessages) message(s), \(totalFindings) finding(s)")
        }
        if ioError { throw Exit.usage }
        if anyError { throw Exit.findings }
    }
}
