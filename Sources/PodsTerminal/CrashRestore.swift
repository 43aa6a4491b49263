import Glibc
import PodsConcurrency
import Synchronization

/// The terminal as it was before curses took it, put back if the process
/// dies of a fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGFPE): a
/// crash left the listener's shell in curses mode (no echo, no cursor, the
/// alternate screen). `endwin()` is not safe in a signal handler, but
/// `write` and `tcsetattr` are: the handler leaves the alternate screen,
/// shows the cursor, resets attributes and restores the saved settings, then
/// hands the signal on (`FatalSignalChain`).
///
/// State the handler reads is set up before it is installed and then only
/// read (an atomic flag says whether to act).
enum CrashRestore {
    /// Saves the terminal's settings and installs the handler (once).
    static func arm() {
        guard !installed else {
            armed.store(tcgetattr(STDIN_FILENO, saved) == 0, ordering: .sequentiallyConsistent)
            return
        }
        guard tcgetattr(STDIN_FILENO, saved) == 0 else { return }
        installed = true
        chain.install { signal in CrashRestore.restore(signal) }
        armed.store(true, ordering: .sequentiallyConsistent)
    }

    /// The terminal was given back cleanly: nothing to do at a crash.
    static func disarm() { armed.store(false, ordering: .sequentiallyConsistent) }

    /// In the signal handler.
    private static func restore(_ signal: Int32) {
        if armed.exchange(false, ordering: .relaxed) {
            let reset: StaticString = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l\r\n"
            _ = write(STDOUT_FILENO, reset.utf8Start, reset.utf8CodeUnitCount)
            tcsetattr(STDIN_FILENO, TCSANOW, saved)
        }
        chain.passOn(signal)
    }

    /// Touched only by `arm` (from the thread that starts the terminal, before the handler is installed).
    nonisolated(unsafe) private static var installed = false
}

private let armed = Atomic<Bool>(false)
/// Written by `arm` before the handler is installed or while it is disarmed; read by the handler.
nonisolated(unsafe) private let saved: UnsafeMutablePointer<termios> = {
    let settings = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    settings.initialize(to: termios())
    return settings
}()
/// Made (by `arm`'s first use) before the handler that reads it is in place.
private let chain = FatalSignalChain()
