import BridgeTestSupport
import Foundation

/// Reads the module layout from the tree: `Sources/`, the `Package.swift` text, the
/// `module-arrows` block of `docs/ARCHITECTURE.md`, and each file's `import` lines.
enum ModuleMap {
    /// Modules any target may import without declaring them.
    static let system: Set<String> = [
        "Foundation", "FoundationEssentials", "Glibc", "Musl", "Darwin", "Dispatch", "Synchronization", "_Concurrency",
    ]
    /// The `.systemLibrary` targets.
    static let systemLibraries: Set<String> = ["CZstd", "CZlib", "CTurboJPEG", "CPcap"]

    /// The declared dependencies of one target.
    struct Dependencies {
        /// Targets of this package.
        var targets: Set<String> = []
        /// Products of other packages (their module names).
        var products: Set<String> = []
    }

    /// The Swift modules under `Sources/` (system libraries excluded).
    static func swiftModules() throws -> [String] {
        let dir = ProjectPaths.root.appendingPathComponent("Sources")
        return try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { !systemLibraries.contains($0) && !$0.hasPrefix(".") }.sorted()
    }

    /// The allowed arrows: module -> modules of this package it may depend on.
    static func arrows() throws -> [String: Set<String>] {
        let text = try String(contentsOf: ProjectPaths.root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        guard let start = text.range(of: "```module-arrows\n"),
              let end = text.range(of: "```", range: start.upperBound..<text.endIndex) else {
            throw MapError("docs/ARCHITECTURE.md has no ```module-arrows block")
        }
        var result: [String: Set<String>] = [:]
        for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard let name = parts.first?.trimmingCharacters(in: .whitespaces), !name.isEmpty else { continue }
            let deps = parts.count > 1 ? parts[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } : []
            result[name] = Set(deps.filter { !$0.isEmpty })
        }
        return result
    }

    /// Each target's `dependencies:` in `Package.swift`, read from its text.
    static func declaredDependencies() throws -> [String: Dependencies] {
        let text = try String(contentsOf: ProjectPaths.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var result: [String: Dependencies] = [:]
        let target = try NSRegularExpression(pattern: #"\.(?:target|executableTarget|testTarget)\(\s*name:\s*"([^"]+)""#)
        let ns = text as NSString
        for m in target.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            let name = ns.substring(with: m.range(at: 1))
            let after = ns.substring(from: m.range.location + m.range.length)
            // The target's own argument list ends at the first `)` that closes `.target(`.
            let body = Self.balanced(after)
            var deps = Dependencies()
            if let r = body.range(of: "dependencies:") {
                let list = Self.bracketed(String(body[r.upperBound...]))
                let product = try NSRegularExpression(pattern: #"\.product\(\s*name:\s*"([^"]+)"[^)]*\)"#)
                let lns = list as NSString
                for p in product.matches(in: list, range: NSRange(location: 0, length: lns.length)) {
                    deps.products.insert(lns.substring(with: p.range(at: 1)))
                }
                let stripped = product.stringByReplacingMatches(in: list, range: NSRange(location: 0, length: lns.length), withTemplate: "")
                let quoted = try NSRegularExpression(pattern: #""([^"]+)""#)
                let sns = stripped as NSString
                for q in quoted.matches(in: stripped, range: NSRange(location: 0, length: sns.length)) {
                    deps.targets.insert(sns.substring(with: q.range(at: 1)))
                }
            }
            result[name] = deps
        }
        return result
    }

    /// The modules `Sources/<module>` imports (every file, every form of `import`).
    static func imports(of module: String) throws -> Set<String> {
        var result: Set<String> = []
        let pattern = try NSRegularExpression(
            pattern: #"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public |internal |package |private |fileprivate )?import\s+(?:typealias |struct |class |enum |protocol |let |var |func )?([A-Za-z_][A-Za-z0-9_]*)"#,
            options: [.anchorsMatchLines])
        for file in try swiftFiles(in: module) {
            let text = try String(contentsOf: file, encoding: .utf8)
            let ns = text as NSString
            for m in pattern.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
                result.insert(ns.substring(with: m.range(at: 1)))
            }
        }
        return result
    }

    /// Names of the types declared at the top level of `Sources/<module>`.
    static func typeNames(in module: String) throws -> Set<String> {
        var result: Set<String> = []
        let pattern = try NSRegularExpression(
            pattern: #"^(?:(?:public|internal|package|fileprivate|private|final|indirect)\s+)*(?:struct|class|enum|actor|protocol)\s+([A-Za-z_][A-Za-z0-9_]*)"#,
            options: [.anchorsMatchLines])
        for file in try swiftFiles(in: module) {
            let text = try String(contentsOf: file, encoding: .utf8)
            let ns = text as NSString
            for m in pattern.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
                result.insert(ns.substring(with: m.range(at: 1)))
            }
        }
        return result
    }

    /// Every `.swift` file under `Sources/<module>`, folders included.
    static func swiftFiles(in module: String) throws -> [URL] {
        let dir = ProjectPaths.root.appendingPathComponent("Sources/\(module)")
        guard let e = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil) else { return [] }
        return e.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    /// `s` up to the parenthesis that closes an already opened one.
    static func balanced(_ s: String) -> String {
        var depth = 1
        var out = ""
        for c in s {
            if c == "(" { depth += 1 } else if c == ")" { depth -= 1; if depth == 0 { break } }
            out.append(c)
        }
        return out
    }

    /// The contents of the first `[...]` in `s`, brackets balanced.
    static func bracketed(_ s: String) -> String {
        guard let open = s.firstIndex(of: "[") else { return "" }
        var depth = 0
        var out = ""
        for c in s[open...] {
            if c == "[" { depth += 1; if depth == 1 { continue } }
            if c == "]" { depth -= 1; if depth == 0 { break } }
            out.append(c)
        }
        return out
    }

    /// A layout file that cannot be read as expected.
    struct MapError: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }
}
