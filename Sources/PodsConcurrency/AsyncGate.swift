import Synchronization

/// Lets at most `width` callers through at once; the others wait, in
/// order, without holding a thread.
public final class AsyncGate: Sendable {
    private let width: Int
    private let state = Mutex<(inside: Int, waiting: [CheckedContinuation<Void, Never>])>((0, []))

    public init(width: Int) { self.width = max(1, width) }

    /// `body`'s result, run once the gate lets the caller in.
    public func through<T: Sendable, E: Error>(_ body: @Sendable () async throws(E) -> T) async throws(E) -> T {
        await enter()
        defer { leave() }
        return try await body()
    }

    public func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state in
                guard state.inside < width else {
                    state.waiting.append(continuation)
                    return false
                }
                state.inside += 1
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    /// Hands the place to the first waiter, if any.
    public func leave() {
        let next = state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.inside -= 1
                return nil as CheckedContinuation<Void, Never>?
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
