/// One sender's calls to one exported object, handled one at a time in the
/// order they arrived: `Pause` then `Play` from one client is never applied
/// the other way round, and a slow call holds up only its own sender.
///
/// Made, filled and closed on the connection's loop thread; the jobs run
/// on a task of their own (on the object's executor).
final class CallQueue {
    struct Key: Hashable {
        let path: DBusObjectPath
        let sender: String
    }

    /// A call's work; `cancelled` says that its caller left, so that the
    /// job answers at once instead of doing the work.
    typealias Job = @Sendable (_ cancelled: Bool) async -> Void

    /// Calls queued and not yet finished (kept by the router).
    var pending = 0
    private let jobs: AsyncStream<Job>.Continuation
    private let worker: Task<Void, Never>

    init(executor: (any TaskExecutor)?) {
        let (stream, continuation) = AsyncStream<Job>.makeStream()
        jobs = continuation
        worker = Task(executorPreference: executor) {
            for await job in stream { await job(Task.isCancelled) }
        }
    }

    func enqueue(_ job: @escaping Job) {
        jobs.yield(job)
    }

    /// Ends the worker once the jobs queued so far have run.
    func close() {
        jobs.finish()
    }

    /// Cancels the job running (its task sees the cancellation) and has
    /// the waiting ones answer without running.
    func cancel() {
        worker.cancel()
        jobs.finish()
    }
}
