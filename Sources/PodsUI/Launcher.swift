import Foundation

/// Starts a desktop program (`xdg-open`) that outlives the UI: its standard
/// files on /dev/null, no signal blocked, every handler at its default (the
/// UI's thread blocks some, and a browser must not inherit that), reaped on
/// a thread of its own so it never lingers as a zombie. (posix_spawn, not
/// Foundation's `Process`, which crashed reading /proc/self/fd in a static
/// release build.)
enum Launcher {
    /// Whether the program started.
    static func detached(_ arguments: [String]) -> Bool {
        guard !arguments.isEmpty else { return false }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        let ownSession: Int32 = 0x80  // POSIX_SPAWN_SETSID (a GNU extension Swift does not import): a session of its own
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | ownSession))
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        guard posix_spawnp(&pid, arguments[0], &actions, &attributes, &argv, environ) == 0 else { return false }
        let child = pid
        Thread {
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        }.start()
        return true
    }
}
