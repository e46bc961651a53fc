#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `write(2)` without the module-name ambiguity.
func writeFD(_ fd: Int32, _ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
    write(fd, p, n)
}

/// Whether `fd` is a terminal (progress lines and colour only then).
func isTerminal(_ fd: Int32) -> Bool {
    isatty(fd) != 0
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
