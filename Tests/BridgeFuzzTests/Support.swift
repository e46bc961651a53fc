import BridgeFuzz
import BridgeTestSupport
import Foundation

/// Paths and loaders shared by the fuzzer's tests.
enum Corpus {
    static let root = ProjectPaths.root.appendingPathComponent("corpus")

    /// Every `*.jsonl` file directly under `corpus/<folder>`, sorted.
    static func files(_ folder: String) -> [URL] {
        let dir = root.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".jsonl") }.sorted().map { dir.appendingPathComponent($0) }
    }

    static func load(_ url: URL) -> FuzzCase {
        FuzzCase.parse([UInt8](FileManager.default.contents(atPath: url.path) ?? Data()))
    }
}

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
