import ArgumentParser
import BridgeJSON
import BridgeProtocol
import Foundation

/// `bridgescope validate`: check envelope files against RFC 8259 and the rule catalogue.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check envelope files against RFC 8259 and the protocol rules.",
        discussion: """
        A file ending in .jsonl or .ndjson (or any file with --lines) holds one envelope per \
        line; any other file is one JSON text holding one envelope. Exit status: 0 when no \
        error-severity finding, 1 when any, 2 on usage or I/O errors.
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

    @Argument(help: "Files to validate.")
    var files: [String]

    func run() throws {
        var anyError = false
        var ioError = false
        var totalMessages = 0
        var totalFindings = 0
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                printError("error: \(file): cannot read the file (does it exist, and is it readable?)")
                ioError = true
                continue
            }
            let isLines = lines || file.hasSuffix(".jsonl") || file.hasSuffix(".ndjson")
            let validator = MessageValidator(layout: isLines ? .lines : .single, syntaxOnly: syntaxOnly)
            let report = validator.validate([UInt8](data))
            totalMessages += report.messages
            totalFindings += report.findings.count
            anyError = anyError || report.hasErrors
            for f in report.findings {
                switch format {
                case .text:
                    print("\(file):\(f.line):\(f.column): \(f.finding.severity): \(f.finding.message) [\(f.finding.rule) \(f.finding.slug)]")
                case .jsonl:
                    let obj: JSONValue = [
                        "file": .string(file), "line": .integer(Int64(f.line)), "offset": .integer(Int64(f.offset)),
                        "rule": .string(f.finding.rule.rawValue), "slug": .string(f.finding.slug),
                        "severity": .string(f.finding.severity.rawValue), "message": .string(f.finding.message),
                    ]
                    print(JSONWriter().string(obj))
                }
            }
        }
        if format == .text {
            printError("\(files.count) file(s), \(totalMessages) message(s), \(totalFindings) finding(s)")
        }
        if ioError { throw Exit.usage }
        if anyError { throw Exit.findings }
    }
}
