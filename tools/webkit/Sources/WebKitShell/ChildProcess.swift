import Foundation

/// A child process started with `posix_spawn` and waited for with `waitpid`.
///
/// Foundation's `Process` learns of a child's exit through its own SIGCHLD machinery,
/// which does not see exits inside a GTK process (GLib handles SIGCHLD for WebKit's
/// processes): `waitUntilExit()` then never returns. This type asks the kernel directly.
/// The child gets a process group of its own, so ``signal(_:)`` reaches what a shell
/// command started (`sh -c 'a | b'`).
package final class ChildProcess: @unchecked Sendable {
    /// The child's pid (and its process group's id).
    package let pid: pid_t
    private let lock = NSLock()
    private var status: Int32?

    /// Starts `path` with `arguments` (argv[1...]). `stdin`/`stdout`/`stderr`: a
    /// descriptor to give the child, or nil to inherit the shell's.
    package init(path: String, arguments: [String], stdin: Int32? = nil, stdout: Int32? = nil,
                 stderr: Int32? = nil, closeInChild: [Int32] = []) throws(ShellError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin { posix_spawn_file_actions_adddup2(&actions, stdin, 0) }
        if let stdout { posix_spawn_file_actions_adddup2(&actions, stdout, 1) }
        if let stderr { posix_spawn_file_actions_adddup2(&actions, stderr, 2) }
        for fd in closeInChild { posix_spawn_file_actions_addclose(&actions, fd) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let r = posix_spawn(&pid, path, &actions, &attributes, argv + [nil], environ)
        guard r == 0 else { throw ShellError("cannot start \(path): \(String(cString: strerror(r)))") }
        self.pid = pid
    }

    /// Whether the child has not exited yet (reaps it when it has).
    package var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        if status != nil { return false }
        var s: Int32 = 0
        let r = waitpid(pid, &s, WNOHANG)
        if r == pid { status = s; return false }
        if r < 0 && errno == ECHILD { status = -1; return false }   // reaped elsewhere
        return true
    }

    /// Sends `sig` to the child's process group.
    package func signal(_ sig: Int32) {
        if isRunning { kill(-pid, sig) }
    }

    /// Waits up to `seconds` for the child to exit; returns whether it did.
    @discardableResult
    package func wait(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning {
            if Date() >= deadline { return false }
            usleep(5_000)
        }
        return true
    }

    /// SIGTERM, `grace` seconds, then SIGKILL; returns once the child is reaped.
    package func stop(grace: Double) {
        signal(SIGTERM)
        if wait(seconds: grace) { return }
        signal(SIGKILL)
        wait(seconds: 5)
    }
}

/// A pipe whose two ends close on exec (the child gets only what it is given by dup2).
func makePipe(_ fds: inout [Int32]) -> Bool {
    guard pipe(&fds) == 0 else { return false }
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return true
}
