import Dispatch
import Synchronization

/// Runs one pipeline's state changes and seeks, in order, on a thread of
/// their own, so that a stream can never hold the player's owner.
///
/// `gst_element_set_state` and a flushing seek wait for the pipeline's
/// streaming threads, and a stream can block one of those for good: the
/// hostile world left a `multiqueue` thread blocked pushing an event while
/// `set_state(PLAYING)` waited for that pad's stream lock, and with it the
/// player's actor and every `org.pods.Player1` call. Here the owner waits
/// for an operation at most `answerLimit` (they take milliseconds); one that
/// takes longer is left to finish on its own, later ones are queued behind
/// it without waiting, and if it is still running after `stallLimit` the
/// worker calls `onStall` once: the pipeline is lost and its owner builds
/// another.
final class PipelineWorker: Sendable {
    private let queue = DispatchQueue(label: "pods.gst-control")
    private let watchdog = DispatchQueue(label: "pods.gst-watchdog")
    private let answerLimit: Duration
    private let stallLimit: Duration
    private let onStall: @Sendable () -> Void
    private struct Progress {
        /// Operations queued so far, and the last one to finish (they run in order).
        var queued: UInt64 = 0
        var finished: UInt64 = 0
        /// Set when the owner stopped waiting for an operation, until it ends.
        var late = false
    }

    private let progress = Mutex(Progress())
    private let stalled = Atomic<Bool>(false)

    init(answerLimit: Duration = .seconds(1), stallLimit: Duration, onStall: @escaping @Sendable () -> Void) {
        self.answerLimit = answerLimit
        self.stallLimit = stallLimit
        self.onStall = onStall
    }

    /// Whether an operation outlived `stallLimit` (the pipeline is lost).
    var hasStalled: Bool { stalled.load(ordering: .acquiring) }

    /// Runs `work` after every operation before it and returns its result,
    /// or nil when it did not finish within `answerLimit` (it still runs,
    /// in order), or at once when an earlier one is still running late.
    @discardableResult
    func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result) -> Result? {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result?>(nil)
        let (number, late) = progress.withLock { progress in
            progress.queued += 1
            return (progress.queued, progress.late)
        }
        queue.async { [self] in
            watchdog.asyncAfter(deadline: .now() + Self.dispatchInterval(stallLimit)) { [self] in
                guard progress.withLock({ $0.finished < number }) else { return }
                if !stalled.exchange(true, ordering: .acquiringAndReleasing) { onStall() }
            }
            let value = work()
            result.withLock { $0 = value }
            progress.withLock { progress in
                progress.finished = number
                if progress.queued == number { progress.late = false }
            }
            done.signal()
        }
        guard !late, !hasStalled else { return nil }
        if done.wait(timeout: .now() + Self.dispatchInterval(answerLimit)) == .timedOut {
            let stillRunning = progress.withLock { progress in
                if progress.finished < number { progress.late = true }
                return progress.finished < number
            }
            if stillRunning { return nil }
        }
        return result.withLock { $0 }
    }

    /// Queues `work` without waiting for it or watching it (a teardown).
    func post(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    private static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        .milliseconds(Int(clamping: duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000))
    }
}
