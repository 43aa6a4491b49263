import Glibc

/// A handler for the signals a crash raises (SIGSEGV, SIGBUS, SIGILL,
/// SIGTRAP — a Swift trap on arm64 —, SIGABRT, SIGFPE) that does its own async-signal-safe work and then hands
/// the signal on: to the handler it replaced (the Swift runtime's backtrace),
/// run inside `raise` with the signal unblocked, and, should that one return
/// (the backtracer does for a signal sent by `kill`), to the default, which
/// ends the process by the signal. podsd marks the load a crash cut short;
/// `pods ui` gives the terminal back.
///
/// Make one chain per use, as a global, then `install` it: the handler
/// reaches it through that global, which must be made before any signal
/// can arrive.
public final class FatalSignalChain: @unchecked Sendable {
    // @unchecked Sendable, proven: `previous` is written only by `install`,
    // before the handlers that read it are in place, and never again.

    public static let signals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE]
    /// One slot per signal number.
    private let previous: UnsafeMutablePointer<sigaction>

    public init() {
        previous = .allocate(capacity: 65)
        previous.initialize(repeating: sigaction(), count: 65)
    }

    /// Puts `handler` in place for every fatal signal, keeping what it replaces.
    /// `handler` must be async-signal-safe and end with `passOn`.
    public func install(_ handler: @convention(c) (Int32) -> Void) {
        Self.giveThreadAlternateStack()
        for signal in Self.signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = handler
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_ONSTACK
            sigaction(signal, &action, previous + Int(signal))
        }
    }

    /// Gives the calling thread an alternate signal stack unless it has one:
    /// the handlers run on it (`SA_ONSTACK`), so a stack overflow reaches
    /// them instead of faulting again (REVIEW-4, N9). Kept for the thread's
    /// life. (GStreamer's streaming threads get theirs as they start.)
    public static func giveThreadAlternateStack() {
        var current = stack_t()
        if sigaltstack(nil, &current) == 0, current.ss_flags & Int32(SS_DISABLE) == 0 { return }
        let size = 64 * 1024
        guard let memory = malloc(size) else { return }
        var alternate = stack_t(ss_sp: memory, ss_flags: 0, ss_size: size)
        if sigaltstack(&alternate, nil) != 0 { free(memory) }
    }

    /// In the handler, last: the replaced handler, then the default.
    public func passOn(_ signal: Int32) {
        guard (0..<65).contains(signal) else { return }
        sigaction(signal, previous + Int(signal), nil)
        var only = sigset_t()
        sigemptyset(&only)
        sigaddset(&only, signal)
        sigprocmask(SIG_UNBLOCK, &only, nil)
        raise(signal)
        Glibc.signal(signal, SIG_DFL)
        raise(signal)
    }
}
