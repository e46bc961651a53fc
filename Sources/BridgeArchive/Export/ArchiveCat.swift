import BridgeJSON
import BridgeReport

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
    /// Print the lines of damaged frames too, marked: `{"unverified":true,...}` in jsonl,
    /// `UNVERIFIED` first in pretty (docs/FORMAT.md §7).
    public var salvage: Bool
    /// Decompress on a thread of its own (worth it with a second core to use).
    public var readAhead: Bool

    /// Creates a runner.
    public init(format: Format = .jsonl, filter: ArchiveRecordFilter = ArchiveRecordFilter(), salvage: Bool = false,
                readAhead: Bool = false) {
        self.format = format
        self.filter = filter
        self.salvage = salvage
        self.readAhead = readAhead
    }

    /// A line as printed: marked when its frame failed its checks.
    static func marked(_ line: ArchiveLine) -> ArraySlice<UInt8> {
        guard !line.verified else { return line.slice }
        if line.slice.first == UInt8(ascii: "{") {
            return (Array(#"{"unverified":true,"#.utf8) + line.slice.dropFirst())[...]
        }
        var out = Array(#"{"unverified":true,"text":"#.utf8)
        JSONWriter.writeString(String(decoding: line.slice, as: UTF8.self), into: &out)
        return (out + [UInt8(ascii: "}")])[...]
    }

    /// Prints the archive at `path` (`-`: standard input; judged by its content) to `fd` and returns the findings (also passed to
    /// `diagnostic` as they are met, for standard error).
    ///
    /// - Throws: ``ArchiveError`` when the archive cannot be opened or output fails.
    public func run(path: String, to fd: Int32, diagnostic: (ArchiveFinding) -> Void = { _ in }) throws(ArchiveError) -> [ArchiveFinding] {
        // Nothing of a line is kept once printed: lines are slices of the reader's buffer.
        let reader = try ArchiveReader(source: PeekedInput.archive(path), salvage: salvage, sharedLines: true, readAhead: ArchiveReadAheadMode(readAhead))
        var out = BufferedOutput(FileOutput(fileDescriptor: fd, name: "standard output", owned: false))
        let pretty = ArchivePrettyPrinter()
        switch format {
        case .jsonl: try out.line(reader.headerLine.slice)
        case .pretty: try out.line(TerminalText.render(pretty.render(reader.header), colour: false))
        }
        // Readings, not items: a record's bytes stay a slice of its line (no copy).
        // A finding about a line that is also read as an item (a record after a
        // sequence gap, a trailer whose counts disagree) comes next to it: its line is
        // printed once.
        var lastPrinted = format == .jsonl ? reader.headerLine.number : -1
        func once(_ line: ArchiveLine, _ print: () throws(ArchiveError) -> Void) throws(ArchiveError) {
            guard line.number != lastPrinted else { return }
            lastPrinted = line.number
            try print()
        }
        // A clean archive's plain record lines, without a filter, are printed as they are, a run at once.
        let bulk = format == .jsonl && filter.isEmpty
        while let reading = try bulk ? reader.nextReading(plain: { (run, _) throws(ArchiveError) in try out.bytes(run) }) : reader.nextReading() {
            let line = reading.line
            let mark = line?.verified == false ? "UNVERIFIED " : ""
            switch reading {
            case .record(let view, _):
                if !filter.isEmpty { guard filter.matches(view.record) else { continue } }
                if format == .pretty { try out.line(TerminalText.render(mark + pretty.render(view.record), colour: false)) } else if let line { try once(line) { () throws(ArchiveError) in try out.line(Self.marked(line)) } }
            case .event(let e, _):
                guard filter.matches(e) else { continue }
                if format == .pretty { try out.line(TerminalText.render(mark + pretty.render(e), colour: false)) } else if let line { try once(line) { () throws(ArchiveError) in try out.line(Self.marked(line)) } }
            case .trailer(let t, _):
                if format == .pretty { try out.line(TerminalText.render(pretty.render(t), colour: false)) } else if let line { try once(line) { () throws(ArchiveError) in try out.line(line.slice) } }
            case .finding(let f, _):
                diagnostic(f)
                if format == .jsonl, filter.isEmpty, let line { try once(line) { () throws(ArchiveError) in try out.line(Self.marked(line)) } }
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

    mutating func line(_ bytes: ArraySlice<UInt8>) throws(ArchiveError) {
        buffer.append(contentsOf: bytes)
        buffer.append(0x0A)
        if buffer.count >= 64 << 10 { try flush() }
    }

    mutating func line(_ bytes: [UInt8]) throws(ArchiveError) {
        buffer.append(contentsOf: bytes)
        buffer.append(0x0A)
        if buffer.count >= 64 << 10 { try flush() }
    }

    /// Bytes as they are (lines with their newlines).
    mutating func bytes(_ bytes: ArraySlice<UInt8>) throws(ArchiveError) {
        buffer.append(contentsOf: bytes)
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
