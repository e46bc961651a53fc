import ArgumentParser

/// The `bridgescope` command: one subcommand per file, no logic of its own.
@main
struct BridgeScope: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bridgescope",
        abstract: "Record, analyze, replay and fuzz the envelope traffic of the web-to-native identity bridge.",
        version: ToolVersion.current,
        subcommands: [
            ValidateCommand.self,
            RulesCommand.self,
            AnalyzeCommand.self,
            CatCommand.self,
            ConformCommand.self,
            ExportCommand.self,
            FuzzCommand.self,
            HostCommand.self,
            RecordCommand.self,
            ReplayCommand.self,
            // subcommands: keep one per line, in alphabetical order after the first two
        ]
    )

    /// Runs the command, mapping argument errors to exit status 2 (the project's
    /// "usage or I/O error") instead of ArgumentParser's 64.
    static func main() async {
        unblockTerminationSignals()
        checkStandardOutputAtExit()
        let arguments = Array(CommandLine.arguments.dropFirst())
        let names = configuration.subcommands.compactMap { $0.configuration.commandName }
        if arguments.first == "help", arguments.count > 1, !names.contains(arguments[1]) {
            printError("error: no subcommand named '\(arguments[1])'; the subcommands are \(names.joined(separator: ", "))")
            exit(withError: Exit.usage)
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            // One spelling for every error line: `error:`, as the subcommands print.
            var message = fullMessage(for: error)
            if message.hasPrefix("Error: ") { message = "error: " + message.dropFirst(7) }
            if code == .validationFailure {
                printError(message)
                exit(withError: Exit.usage)
            }
            if code != .success && !message.isEmpty {
                printError(message)
                exit(withError: ExitCode(code.rawValue))
            }
            exit(withError: error)
        }
    }
}

/// The tool's version, shown by `--version` and written into archive headers.
enum ToolVersion {
    static let current = "0.1.0"
}
