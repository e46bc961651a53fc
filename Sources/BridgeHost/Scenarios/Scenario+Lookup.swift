import Foundation

extension Scenario {
    /// The file of `spec`: a path when it contains `/` or ends in `.json`, otherwise the
    /// name of `NAME.json` in the first of `directories` that holds it (the callers pass
    /// the resource search path's `tools/scenarios`).
    ///
    /// - Throws: ``HostError`` `unreadable-scenario` naming the known scenarios, or where
    ///   they were looked for when none was found.
    public static func locate(_ spec: String, in directories: [String], searched: String) throws(HostError) -> String {
        if spec.contains("/") || spec.hasSuffix(".json") { return spec }
        if let dir = directories.first(where: { FileManager.default.fileExists(atPath: "\($0)/\(spec).json") }) {
            return "\(dir)/\(spec).json"
        }
        let known = directories.flatMap { (try? FileManager.default.contentsOfDirectory(atPath: $0)) ?? [] }
            .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }
        let names = Array(Set(known)).sorted()
        throw HostError(.unreadableScenario, "no scenario named \"\(spec)\"" + (names.isEmpty
            ? "; no tools/scenarios directory found: \(searched)"
            : "; known: " + names.joined(separator: ", ")))
    }
}
