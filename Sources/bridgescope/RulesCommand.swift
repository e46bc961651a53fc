import ArgumentParser
import BridgeJSON
import BridgeProtocol

/// `bridgescope rules`: print the rule catalogue.
struct RulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "Print the rule catalogue (text table, Markdown for docs/RULES.md, or JSON).",
        discussion: """
        Examples:
          bridgescope rules
          bridgescope rules --json | jq '.rules[] | select(.severity == "error")'
        """
    )

    @Flag(help: "Print docs/RULES.md.")
    var markdown = false

    @Flag(help: "Print the catalogue as JSON.")
    var json = false

    func validate() throws {
        if markdown && json { throw ValidationError("--markdown and --json cannot be combined") }
    }

    func run() {
        let catalogue = RuleCatalogue.standard
        if markdown {
            print(catalogue.markdown(), terminator: "")
        } else if json {
            print(JSONWriter().string(catalogue.jsonValue()))
        } else {
            print(catalogue.textTable(), terminator: "")
        }
    }
}
