/// Prints an archive (`bridgescope cat`): the logic behind the command, writing to a
/// file descriptor so the CLI only parses options and maps the outcome to an exit code.
public struct ArchiveCat {
    /// Output layouts.
    public enum Format: String, Sendable, CaseIterable {
        /// The archive's own lines, byte for byte: header, records, events, trailer. With
        /// a filter, only matching records and events (header and trailer always).
        /// Without one, lines that are not valid are printed too, as they are.
        case jsonl
        /// One readable line per item (``ArchivePrettyPrinter``).
        case pretty
    }

    /// The layout.
    public var format: Format
    /// Which records and events to print.
    public var filter: ArchiveRecordFilter

    /// Creates a runner.
    public init(format: Format = .jsonl, filter: ArchiveRecordFilter = ArchiveRecordFilter()) {
        self.format = format
        self.filter = filter
    }

    /// Prints the archive at `path` to `fd` and returns the findings (also passed to
    /// `diagnostic` as they are met, for standard error).
    ///
    /// - Throws: ``ArchiveError`` when the archive cannot be opened or output fails.
    public func run(path: String, to fd: Int32, diagnostic: (ArchiveFinding) -> Void = { _ in }) throws(ArchiveError) -> [ArchiveFinding] {
        let reader = try ArchiveReader(path: path)
        var out = BufferedOutput(FileOutput(fileDescriptor: fd, name: "standard output", owned: false))
        let pretty = ArchivePrettyPrinter()
        switch format {
        case .jsonl: try out.line(reader.headerLine.bytes)
        case .pretty: try out.line(pretty.render(reader.header))
        }
        while let (item, line) = reader.nextWithLine() {
            switch item {
            case .record(let r):
                guard filter.matches(r) else { continue }
                if format == .pretty { try out.line(pretty.render(r)) } else if let line { try out.line(line.bytes) }
            case .event(let e):
                guard filter.matches(e) else { continue }
                if format == .pretty { try out.line(pretty.render(e)) } else if let line { try out.line(line.bytes) }
            case .trailer(let t):
                if format == .pretty { try out.line(pretty.render(t)) } else if let line { try out.line(line.bytes) }
            case .finding(let f):
                diagnostic(f)
                if format == .jsonl, filter.isEmpty, let line { try out.line(line.bytes) }
            }
        }
        try out.flush()
        return reader.findings
    }
}

/// Output gathered into 64 KiB writes.
struct BufferedOutput {
    var file: FileOutput
    var buffer: [UInt8] = []

    init(_ file: FileOutput) {
        self.file = file
        buffer.reserveCapacity(64 << 10)
    }

    mutating func line(_ bytes: [UInt8]) throws(ArchiveError) {
        buffer.append(contentsOf: bytes)
        buffer.append(0x0A)
        if buffer.count >= 64 << 10 { try flush() }
    }

    mutating func line(_ text: String) throws(ArchiveError) {
        try line(Array(text.utf8))
    }

    mutating func flush() throws(ArchiveError) {
        try file.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
