import BridgeArchive
import Logging

/// A recorded session as replay sees it: its connections, each with the messages that
/// are complete, and notes on everything that was not used.
///
/// Damage rules (docs/REPLAY.md, "Broken archives"): a reader finding that may have lost
/// lines (truncation, corrupt data, a sequence gap, a bad line) cuts every connection
/// still open at that point; a `gap` event cuts its connection; a `drop` event, or an
/// `error` event without a connection, cuts every open connection. A cut connection
/// replays what came before the cut; its messages after the cut are skipped and
/// counted, and the answers of its requests that were never recorded are not compared.
public struct ReplaySession: Sendable, Hashable {
    /// The connections, in the order they started.
    public var connections: [RecordedConnection]
    /// What was not replayed, and why.
    public var skipped: [SkippedPart]
    /// The archive reader's findings, as sentences.
    public var archiveFindings: [String]

    /// Creates a session from parts (tests, generators).
    public init(connections: [RecordedConnection], skipped: [SkippedPart] = [], archiveFindings: [String] = []) {
        self.connections = connections
        self.skipped = skipped
        self.archiveFindings = archiveFindings
    }

    /// When the first connection started (ns); 0 for an empty session.
    public var startTime: Int64 { connections.map(\.startTime).min() ?? 0 }

    /// Number of messages kept for replay.
    public var messageCount: Int { connections.reduce(0) { $0 + $1.messages.count } }

    /// Reads an archive: every item in one pass.
    ///
    /// - Throws: ``ReplayError`` (`archive`) when the file cannot be opened or is not an
    ///   archive. Damage inside it is not an error: see the type's documentation.
    public static func load(path: String, logger: Logger = Logger(label: "bridgescope.replay")) throws(ReplayError) -> ReplaySession {
        let reader: ArchiveReader
        do {
            reader = try ArchiveReader(path: path, logger: logger)
        } catch {
            throw ReplayError(.archive, error.description)
        }
        var builder = ReplaySessionBuilder()
        while let item = reader.next() { builder.add(item) }
        let session = builder.finish()
        logger.debug("session loaded", metadata: [
            "path": "\(path)", "connections": "\(session.connections.count)", "messages": "\(session.messageCount)",
        ])
        return session
    }

    /// Builds a session from archive items already in memory.
    public static func from(items: some Sequence<ArchiveItem>) -> ReplaySession {
        var builder = ReplaySessionBuilder()
        for item in items { builder.add(item) }
        return builder.finish()
    }
}
