import BridgeTestSupport
import Foundation
import Testing

/// The module layout stays what `docs/ARCHITECTURE.md` draws: the allowed arrows are
/// written once there (the `module-arrows` block), and these tests fail when a module
/// imports one it must not, imports a product it does not declare in `Package.swift`
/// (or declares one it never imports), when two modules define a type of the same name
/// (two parsers of one format), or when the README's module table drifts from the tree.
@Suite struct ArchitectureTests {
    static let root = ProjectPaths.root

    @Test func everyModuleIsDrawnAndEveryDrawnModuleExists() throws {
        let arrows = try ModuleMap.arrows()
        let modules = try ModuleMap.swiftModules()
        #expect(Set(arrows.keys) == Set(modules), "docs/ARCHITECTURE.md module-arrows vs Sources/")
    }

    @Test func declaredDependenciesFollowTheArrows() throws {
        let arrows = try ModuleMap.arrows()
        let declared = try ModuleMap.declaredDependencies()
        for (module, deps) in declared.sorted(by: { $0.key < $1.key }) where arrows[module] != nil {
            let allowed = arrows[module] ?? []
            for dep in deps.targets.sorted() where !allowed.contains(dep) {
                Issue.record("\(module) depends on \(dep) in Package.swift; docs/ARCHITECTURE.md does not draw that arrow")
            }
        }
    }

    @Test func importsAreDeclaredAndDeclarationsAreImported() throws {
        let declared = try ModuleMap.declaredDependencies()
        for module in try ModuleMap.swiftModules() {
            let imports = try ModuleMap.imports(of: module)
            let deps = declared[module] ?? .init()
            let allowed = deps.targets.union(deps.products)
            for i in imports.sorted() where !ModuleMap.system.contains(i) && !allowed.contains(i) {
                Issue.record("Sources/\(module) imports \(i), which its Package.swift entry does not declare")
            }
            for d in allowed.sorted() where !imports.contains(d) {
                Issue.record("Package.swift declares \(d) for \(module), which no file of it imports")
            }
        }
    }

    @Test func eachSystemLibraryHasExactlyOneImporter() throws {
        var importers: [String: [String]] = [:]
        for module in try ModuleMap.swiftModules() {
            for i in try ModuleMap.imports(of: module) where i.hasPrefix("C") && ModuleMap.systemLibraries.contains(i) {
                importers[i, default: []].append(module)
            }
        }
        for lib in ModuleMap.systemLibraries.sorted() {
            #expect(importers[lib]?.count == 1, "\(lib) imported by \(importers[lib] ?? [])")
        }
    }

    @Test func noTypeNameIsDefinedInTwoModules() throws {
        var owners: [String: Set<String>] = [:]
        for module in try ModuleMap.swiftModules() {
            for name in try ModuleMap.typeNames(in: module) { owners[name, default: []].insert(module) }
        }
        let modules = Set(try ModuleMap.swiftModules())
        // A type named like another module makes `Module.X` ambiguous wherever both are
        // imported (a module's own namesake type, `BridgeHost.BridgeHost`, is the seeds' API).
        for (name, where_) in owners.sorted(by: { $0.key < $1.key }) where modules.contains(name) && where_ != [name] {
            Issue.record("type \(name) in \(where_.sorted()) has the name of another module: `\(name).X` becomes ambiguous")
        }
        let twice = owners.filter { $0.value.count > 1 }.map { "\($0.key): \($0.value.sorted().joined(separator: ", "))" }.sorted()
        #expect(twice.isEmpty, "one owner per type (and per format parser): \(twice.joined(separator: "; "))")
    }

    @Test func readmeModuleTableMatchesTheTree() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let rows = readme.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("| `") else { return nil }
            let cell = line.dropFirst(3).prefix { $0 != "`" }
            return cell.first?.isUppercase == true || cell == "bridgescope" ? String(cell) : nil
        }
        let modules = try ModuleMap.swiftModules()
        #expect(Set(rows).isSuperset(of: modules), "README module table lacks \(Set(modules).subtracting(rows).sorted())")
        let stale = Set(rows).filter { $0.hasPrefix("Bridge") }.subtracting(modules)
        #expect(stale.isEmpty, "README module table names modules that do not exist: \(stale.sorted())")
    }
}
