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
