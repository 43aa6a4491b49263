import Synchronization

/// Opens once; whoever waits before then waits without holding a thread,
/// whoever comes after goes through.
public final class AsyncLatch: Sendable {
    private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    public init() {}

    /// Returns once `open()` was called.
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = state.withLock { state in
                if !state.open { state.waiting.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
    }

    /// Lets every waiter through, and all that come later.
    public func open() {
        let waiting = state.withLock { state in
            defer { state = (true, []) }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
