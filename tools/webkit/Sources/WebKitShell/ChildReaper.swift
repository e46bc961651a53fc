import Foundation

/// Ends and waits for the shell's own child processes (WebKit's web and network
/// processes), so that none outlives a run: PID 1 in the containers this runs in does not
/// reap orphans, so a child the shell leaves behind stays a zombie.
package enum ChildReaper {
    /// The pids whose parent is this process, from /proc.
    package static func children() -> [pid_t] {
        let me = getpid()
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        var found: [pid_t] = []
        for e in entries {
            guard let pid = pid_t(e), pid != me,
                  let stat = try? String(contentsOfFile: "/proc/\(e)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // After "pid (comm)": state, then ppid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == me { found.append(pid) }
        }
        return found
    }

    /// Sends SIGTERM to every child except `keep`, waits up to `seconds` for them, then
    /// SIGKILLs and reaps what is left.
    package static func reap(except keep: Set<pid_t>, seconds: Double = 3) {
        var pending = Set(children()).subtracting(keep)
        for pid in pending { kill(pid, SIGTERM) }
        let deadline = Date().addingTimeInterval(seconds)
        while !pending.isEmpty {
            for pid in pending {
                var status: Int32 = 0
                let r = waitpid(pid, &status, WNOHANG)
                if r == pid || (r < 0 && errno == ECHILD) { pending.remove(pid) }
            }
            if pending.isEmpty { break }
            if Date() >= deadline {
                for pid in pending { kill(pid, SIGKILL) }
                for pid in pending { var s: Int32 = 0; _ = waitpid(pid, &s, 0) }
                break
            }
            usleep(10_000)
        }
    }
}
