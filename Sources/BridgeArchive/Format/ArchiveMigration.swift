import BridgeJSON

/// Reading older archives: a reader of format version N reads every version below N
/// by applying one-step migrations in order (v1 → v2 → … → N) to each parsed line,
/// before decoding it as version N (docs/FORMAT.md §8).
///
/// A step works on the parsed line object and must keep member offsets meaningful:
/// it may rename members, add members built in code (offset -1) or drop members, but
/// it must not move a `msg` value, whose bytes are sliced from the original line.
/// Each step is kept forever, with a fixture archive of its version in the tests.
///
/// Version 1 is the first version, so there is no step yet.
enum ArchiveMigration {
    /// A one-step migration: turns a line object of version `v` into version `v + 1`.
    public typealias Step = @Sendable (inout JSONObject) throws(ArchiveLineError) -> Void

    /// The steps, keyed by the version they migrate from.
    static let steps: [Int: Step] = [:]

    /// Migrates `object` from `version` to ``BridgeArchiveFormat/currentVersion``.
    static func migrate(_ object: inout JSONObject, from version: Int) throws(ArchiveLineError) {
        var v = version
        while v < BridgeArchiveFormat.currentVersion {
            guard let step = steps[v] else {
                throw ArchiveLineError(reason: "no migration from format version \(v) to \(v + 1)")
            }
            try step(&object)
            v += 1
        }
    }
}
