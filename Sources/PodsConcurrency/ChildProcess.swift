import Foundation
import Glibc

/// Starts programs that outlive a call (a browser, a terminal server):
/// with posix_spawn, their standard files on /dev/null, no signal blocked
/// and every handler at its default (the thread that spawns may block
/// most, and a child would keep that), optionally in a session of its own.
/// Foundation's `Process` reads each child's end through its pipes and
/// crashed reading /proc/self/fd in a static release build.
public enum ChildProcess {
    /// The child's pid, or nil when it could not start. `arguments[0]` is
    /// looked up in PATH. `terminal`: a terminal's path to be the child's
    /// standard files instead of /dev/null (with `ownSession`, it becomes
    /// the session's controlling terminal); `environment`: added to this
    /// process's.
    public static func spawn(_ arguments: [String], ownSession: Bool = false, terminal: String? = nil,
                             environment: [String: String] = [:]) -> pid_t? {
        guard let program = arguments.first else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let terminal {
            posix_spawn_file_actions_addopen(&actions, 0, terminal, O_RDWR, 0)
            posix_spawn_file_actions_adddup2(&actions, 0, 1)
            posix_spawn_file_actions_adddup2(&actions, 0, 2)
        } else {
            for fd: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        let setSession: Int32 = 0x80  // POSIX_SPAWN_SETSID, a GNU extension Swift does not import
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (ownSession ? setSession : 0)))
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let status: Int32
        if environment.isEmpty {
            status = posix_spawnp(&pid, program, &actions, &attributes, &argv, environ)
        } else {
            let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            var envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for variable in envp { free(variable) } }
            status = posix_spawnp(&pid, program, &actions, &attributes, &argv, &envp)
        }
        return status == 0 ? pid : nil
    }

    /// Waits for `pid` to end on a thread of its own (the task pool is never
    /// blocked); its wait status. With `killAfter`, a child still running
    /// then is killed (SIGKILL), on that thread's clock, however busy the
    /// task pool is.
    public static func exit(of pid: pid_t, killAfter limit: Duration? = nil) async -> Int32 {
        await withCheckedContinuation { continuation in
            Thread {
                guard let limit else { return continuation.resume(returning: wait(pid)) }
                let deadline = ContinuousClock.now + limit
                var status: Int32 = 0
                while true {
                    let ended = waitpid(pid, &status, WNOHANG)
                    if ended == pid { return continuation.resume(returning: status) }
                    if ended < 0 && errno != EINTR { return continuation.resume(returning: unknownEnd) }
                    if ContinuousClock.now >= deadline {
                        kill(pid, SIGKILL)
                        return continuation.resume(returning: wait(pid))
                    }
                    usleep(10_000)
                }
            }.start()
        }
    }

    /// Waits (blocking: call it off the task pool) for `pid` to end; its wait
    /// status, or `unknownEnd` when it cannot be waited for (ECHILD): never 0,
    /// which a caller would take for success.
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while true {
            if waitpid(pid, &status, 0) == pid { return status }
            if errno != EINTR { return unknownEnd }
        }
    }

    /// The status of a child whose end could not be learnt: exited with 255.
    public static let unknownEnd: Int32 = 255 << 8
}
