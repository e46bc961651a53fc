#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command writes its result (`analyze -o`, `export`), so that a failed or
/// mistaken run never destroys anything:
///
/// - it refuses to be one of the command's inputs, compared by device and inode (a
///   different spelling, a hard link or a symbolic link to an input is caught);
/// - a regular file is written into a temporary file beside it (`.NAME.tmp-XXXXXX`) and
///   renamed into place by ``commit()``; a failed run removes the temporary file and
///   leaves an existing output as it was;
/// - `-` is standard output, and a path that exists and is not a regular file (a
///   terminal, `/dev/full`, a FIFO) is written in place;
/// - every write is checked: a full disk or `/dev/full` is an error with the system's
///   reason, never a silent success.
public final class OutputFile {
    /// The path as given (`-` for standard output).
    public let path: String
    private var file: FileOutput
    private let temporaryPath: String?
    private var done = false

    /// Opens `path` for writing after checking it is none of `inputs`.
    ///
    /// - Throws: ``ArchiveError`` (`io`) when the output is an input, or cannot be created.
    public init(path: String, inputs: [String] = []) throws(ArchiveError) {
        self.path = path
        if path == "-" {
            file = FileOutput(fileDescriptor: 1, name: "standard output", owned: false)
            temporaryPath = nil
            return
        }
        try Self.checkNotInput(path, inputs: inputs)
        var st = stat()
        if stat(path, &st) == 0 && (st.st_mode & S_IFMT) != S_IFREG {
            file = try FileOutput(creating: path)
            temporaryPath = nil
            return
        }
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array("\(dir.isEmpty ? "/" : dir)/.\(name).tmp-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw ArchiveError.system("creating a temporary file in its folder", path: path)
        }
        _ = fchmod(fd, 0o644)
        let tmp = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        temporaryPath = tmp
        file = FileOutput(fileDescriptor: fd, name: path, owned: true)
    }

    /// Throws when `output` is the same file as one of `inputs` (by device and inode;
    /// inputs that do not exist, and `-`, are ignored).
    public static func checkNotInput(_ output: String, inputs: [String]) throws(ArchiveError) {
        guard output != "-" else { return }
        var o = stat()
        guard stat(output, &o) == 0 else { return }
        for input in inputs where input != "-" {
            var i = stat()
            if stat(input, &i) == 0 && i.st_dev == o.st_dev && i.st_ino == o.st_ino {
                let same = input == output ? "" : " (\(input) is the same file)"
                throw ArchiveError(.io, path: output,
                                   "is also an input\(same): writing it would destroy that input; write the output to another path")
            }
        }
    }

    /// Writes every byte of `bytes`.
    public func write(_ bytes: [UInt8]) throws(ArchiveError) {
        do throws(ArchiveError) { try file.write(bytes) } catch {
            abort()
            throw error
        }
    }

    /// Flushes to stable storage, closes, and renames the temporary file into place.
    public func commit() throws(ArchiveError) {
        guard !done else { return }
        if let temporaryPath {
            if fsync(file.fd) != 0 {
                let e = ArchiveError.system("writing (fsync)", path: path)
                abort()
                throw e
            }
            do throws(ArchiveError) { try file.close() } catch {
                abort()
                throw error
            }
            guard rename(temporaryPath, path) == 0 else {
                let e = ArchiveError.system("renaming the finished output into place", path: path)
                unlink(temporaryPath)
                done = true
                throw e
            }
        } else {
            try file.close()
        }
        done = true
    }

    /// Gives up: closes and removes the temporary file (an existing output is left as it
    /// was). Called on any error and when the value goes away uncommitted.
    func abort() {
        guard !done else { return }
        done = true
        try? file.close()
        if let temporaryPath { unlink(temporaryPath) }
    }

    deinit { abort() }
}
