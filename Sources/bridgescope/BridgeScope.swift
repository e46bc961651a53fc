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
            CatCommand.self,
            RecordCommand.self,
            // subcommands: keep one per line, in alphabetical order after the first two
        ]
    )
}

/// The tool's version, shown by `--version` and written into archive headers.
enum ToolVersion {
    static let current = "0.1.0"
}
