import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files of one tap (docs/TAP.md §3): `<prefix>-<seq>.ndjson` in one directory, each
/// starting with its header line, the newest `maxFiles` kept. Used by the writer thread
/// only. A file is (re)opened lazily, so a directory that becomes writable again is used.
struct TapFileSet {
    private let configuration: TapConfiguration
    private var fd: Int32 = -1
    private var size = 0
    private(set) var seq = 0
    private var reported: Set<String> = []

    init(configuration: TapConfiguration) {
        self.configuration = configuration
    }

    /// Writes `entries` in order; returns those that could not be written, with why.
    mutating func write(_ entries: [TapQueued]) -> [(TapQueued, String)] {
        var failed: [(TapQueued, String)] = []
        var k = 0
        while k < entries.count {
            if let reason = prepare(for: entries[k].bytes.count, time: entries[k].time) {
                failed.append(contentsOf: entries[k...].map { ($0, reason) })
                return failed
            }
            // Lines that fit in the current file go out in one write(2).
            var chunk: [UInt8] = []
            var end = k
            while end < entries.count && (end == k || size + chunk.count + entries[end].bytes.count <= configuration.maxFileBytes) {
                chunk.append(contentsOf: entries[end].bytes)
                end += 1
            }
            if let reason = writeAll(chunk) {
                failed.append(contentsOf: entries[k..<end].map { ($0, reason) })
            } else {
                size += chunk.count
                reported.removeAll()
            }
            k = end
        }
        return failed
    }

    /// Closes the current file.
    mutating func close() {
        if fd >= 0 { _ = systemClose(fd) }
        fd = -1
    }

    /// Opens a file (or the next one, when `count` more bytes would pass the size cap);
    /// its header carries `time`, the first line's.
    private mutating func prepare(for count: Int, time: Int64) -> String? {
        if fd >= 0 && size > headerSize && size + count > configuration.maxFileBytes { close() }
        if fd >= 0 { return nil }
        let dir = configuration.directory
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            return fail("cannot create the tap directory \(dir): \(error.localizedDescription)")
        }
        let first = seq == 0
        if first { seq = existing().map(\.seq).max() ?? 0 }
        seq += 1
        let path = "\(dir)/\(name(seq))"
        let opened = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard opened >= 0 else {
            seq = first ? 0 : seq - 1
            return fail("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        fd = opened
        size = 0
        let header = TapLine.header(time: time, seq: seq, first: first, redacted: !configuration.keepSensitiveFields)
        if let reason = writeAll(header) {
            close()
            return reason
        }
        size = header.count
        headerSize = header.count
        for old in existing().sorted(by: { $0.seq < $1.seq }).dropLast(max(configuration.maxFiles, 1)) {
            unlink("\(dir)/\(old.name)")
        }
        return nil
    }

    private var headerSize = 0

    private func name(_ seq: Int) -> String {
        let digits = String(seq)
        return "\(configuration.prefix)-\(String(repeating: "0", count: max(0, 6 - digits.count)))\(digits).ndjson"
    }

    /// The tap's files in the directory, by sequence number.
    private func existing() -> [(seq: Int, name: String)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: configuration.directory)) ?? []
        let head = configuration.prefix + "-"
        return names.compactMap { n in
            guard n.hasPrefix(head), n.hasSuffix(".ndjson") else { return nil }
            let middle = n.dropFirst(head.count).dropLast(".ndjson".count)
            guard middle.count >= 6, middle.allSatisfy(\.isASCII), let s = Int(middle), s > 0 else { return nil }
            return (s, n)
        }
    }

    /// Writes all of `bytes`; on failure cuts the file back so no partial line stays.
    private mutating func writeAll(_ bytes: [UInt8]) -> String? {
        var done = 0
        let reason: String? = bytes.withUnsafeBytes { p in
            while done < p.count {
                let n = systemWrite(fd, p.baseAddress! + done, p.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                done += n
            }
            return nil
        }
        guard let reason else { return nil }
        if done > 0 { _ = ftruncate(fd, off_t(size)) }
        return fail("cannot write \(configuration.directory)/\(name(seq)): \(reason)")
    }

    /// Reports `message` once (until a write succeeds) and returns it.
    private mutating func fail(_ message: String) -> String {
        if reported.insert(message).inserted { configuration.onError?(TapError(message)) }
        return message
    }
}

// close(2) and write(2) under names the struct's own `close()` does not shadow.
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { write(fd, p, n) }
