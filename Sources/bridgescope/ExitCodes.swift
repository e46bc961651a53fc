import ArgumentParser

/// Exit codes shared by every subcommand: 0 clean, 1 findings at or above the
/// threshold, 2 usage or I/O errors.
enum Exit {
    static let findings = ExitCode(1)
    static let usage = ExitCode(2)
}

/// Writes a line to standard error.
func printError(_ message: String, terminator: String = "\n") {
    var stderr = StandardError()
    print(message, terminator: terminator, to: &stderr)
}

/// A `TextOutputStream` over file descriptor 2.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        var s = string
        s.withUTF8 { buf in
            var off = 0
            while off < buf.count {
                let n = writeFD(2, buf.baseAddress! + off, buf.count - off)
                if n <= 0 { return }
                off += n
            }
        }
    }
}
