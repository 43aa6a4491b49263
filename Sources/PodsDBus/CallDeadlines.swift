import Synchronization

/// The time limits of the calls under way, kept by one sleeper: it sleeps
/// until the earliest, ends the calls whose time ran out and sleeps on to
/// the next, and it is woken earlier only by a call whose limit comes first.
///
/// A `Task.sleep` per call (what this replaces) leaves a timer armed in the
/// runtime until its deadline even after the call ends and cancels it:
/// 4,000 quick MPRIS calls left 4,000 timers that woke podsd 25 s later,
/// 11 times a second while paused.
final class CallDeadlines: Sendable {
    static let shared = CallDeadlines()

    private struct Waiter {
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
        /// When the sleeper wakes next, if one sleeps.
        var wakeAt: ContinuousClock.Instant?
        var sleeper: Task<Void, Never>?
    }

    private let state = Mutex(State())

    /// Returns once `deadline` has passed, or at once when the caller's task is cancelled.
    func wait(until deadline: ContinuousClock.Instant) async {
        let id = state.withLock { state in
            state.nextID &+= 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    guard !Task.isCancelled, deadline > .now else { return true }
                    state.waiters[id] = Waiter(deadline: deadline, continuation: continuation)
                    if state.wakeAt.map({ deadline < $0 }) ?? true { arm(&state, at: deadline) }
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    /// (Re)starts the sleeper for `instant`; the one it replaces ends without waking anyone.
    private func arm(_ state: inout State, at instant: ContinuousClock.Instant) {
        state.sleeper?.cancel()
        state.wakeAt = instant
        state.sleeper = Task { [self] in
            try? await Task.sleep(until: instant, clock: .continuous)
            guard !Task.isCancelled else { return }
            expire()
        }
    }

    private func expire() {
        let due = state.withLock { state -> [Waiter] in
            let now = ContinuousClock.now
            let due = state.waiters.filter { $0.value.deadline <= now }
            for id in due.keys { state.waiters.removeValue(forKey: id) }
            state.sleeper = nil
            state.wakeAt = nil
            if let next = state.waiters.values.map(\.deadline).min() { arm(&state, at: next) }
            return Array(due.values)
        }
        for waiter in due { waiter.continuation.resume() }
    }
}
