#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// `write(2)` without the module-name ambiguity.
func writeFD(_ fd: Int32, _ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
    write(fd, p, n)
}

/// Whether `fd` is a terminal (progress lines and colour only then).
func isTerminal(_ fd: Int32) -> Bool {
    isatty(fd) != 0
}

/// Whether colour may be written to `fd` with `--color auto`: a terminal, `NO_COLOR`
/// unset or empty (https://no-color.org), and `TERM` not `dumb`.
func colourWanted(_ fd: Int32) -> Bool {
    guard isTerminal(fd) else { return false }
    if let v = getenv("NO_COLOR"), v.pointee != 0 { return false }
    if let t = getenv("TERM"), String(cString: t) == "dumb" { return false }
    return true
}

/// Unblocks SIGINT and SIGTERM. A process inherits its parent's signal mask; some
/// launchers (for example a Dispatch worker thread spawning us) block them, and then
/// Ctrl-C or `kill` would never finalize an archive or stop a host.
func unblockTerminationSignals() {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGINT)
    sigaddset(&set, SIGTERM)
    sigprocmask(SIG_UNBLOCK, &set, nil)
}

/// At exit, flushes standard output and checks it: a command whose output could not be
/// written (a full disk, `/dev/full`, a closed pipe) exits 2 with the reason on
/// standard error, whatever it printed, instead of 0 (every `print` of every subcommand
/// is covered here, once).
func checkStandardOutputAtExit() {
    atexit {
        let out = standardOutputStream()
        if fflush(out) != 0 || ferror(out) != 0 {
            let reason = String(cString: strerror(errno))
            let text = Array("error: standard output: write failed: \(reason); the output is incomplete\n".utf8)
            _ = text.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count) }
            _exit(2)
        }
    }
}

/// C's `stdout` (a global C variable; read at exit only, on one thread).
private func standardOutputStream() -> UnsafeMutablePointer<FILE>? { stdout }
