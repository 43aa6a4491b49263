import Synchronization

/// One sender's calls to one exported object, started one at a time in the
/// order they arrived: `Pause` then `Play` from one client is never applied
/// the other way round, and a slow call holds up only its own sender.
///
/// A call holds up the sender's later calls until it ends, or until its
/// handler says they may start (`DBusCall.letLaterCallsStart()`): a `Next`
/// that waits for the next episode's first bytes takes its place in the
/// player first, then lets the `Pause` behind it through at once.
///
/// Made, filled and closed on the connection's loop thread; the jobs run
/// on a task of their own (on the object's executor).
final class CallQueue: @unchecked Sendable {
    // @unchecked Sendable, proven: `pending` is read and written only on the
    // connection's loop thread (the router's); `jobs` and `worker` are
    // Sendable and never reassigned; `left` and `abandonRunning` are atomic.
    struct Key: Hashable {
        let path: DBusObjectPath
        let sender: String
    }

    /// A call's work; `callerLeft` says that its caller has left the bus.
    typealias Job = @Sendable (_ callerLeft: Bool) async -> Void

    /// Calls queued and not yet finished (kept by the router).
    var pending = 0
    private let jobs: AsyncStream<Job>.Continuation
    private let worker: Task<Void, Never>
    private let left = CallerLeft()
    /// Stops the job holding up the queue, when its caller may abandon it.
    private let abandonRunning = Mutex<(@Sendable () -> Void)?>(nil)

    init(executor: (any TaskExecutor)?) {
        let (stream, continuation) = AsyncStream<Job>.makeStream()
        jobs = continuation
        worker = Task(executorPreference: executor) { [left] in
            for await job in stream { await job(left.value.load(ordering: .acquiring)) }
        }
    }

    func enqueue(_ job: @escaping Job) {
        jobs.yield(job)
    }

    /// While a job holds up the queue: what stops it if its caller leaves (nil: it runs on).
    func whileRunning(abandon: (@Sendable () -> Void)?) {
        abandonRunning.withLock { $0 = abandon }
    }

    /// The caller left the bus: the job running stops if it may be
    /// abandoned, and the waiting ones are told when they start.
    func callerLeft() {
        left.value.store(true, ordering: .releasing)
        abandonRunning.withLock { $0 }?()
    }

    /// Ends the worker once the jobs queued so far have run.
    func close() {
        jobs.finish()
    }

    /// Cancels the job running (its task sees the cancellation) and has
    /// the waiting ones answer without running: the connection is gone.
    func cancel() {
        worker.cancel()
        jobs.finish()
    }
}

/// Whether a queue's caller has left the bus (a class, so that the worker task can hold it).
private final class CallerLeft: Sendable {
    let value = Atomic<Bool>(false)
}

/// What a method's handler may tell the call queue it runs in.
///
/// The handler's task is looked up in a table rather than told through a
/// task-local value: `TaskLocal.withValue` in a task with an executor
/// preference crashed the release build (`swift_task_localValuePush`,
/// Swift 6.3.1 with the static standard library), while debug builds and
/// the tests ran fine.
public enum DBusCall {
    /// The gate of each handler's task while it runs (keyed by the task).
    private static let gates = Mutex<[Int: CallGate]>([:])

    /// Runs `body` (a handler's work) with `gate` as what `letLaterCallsStart` opens.
    static func running<T: Sendable>(with gate: CallGate, _ body: () async throws -> T) async rethrows -> T {
        let key = withUnsafeCurrentTask { $0?.hashValue }
        if let key { gates.withLock { $0[key] = gate } }
        defer { if let key { _ = gates.withLock { $0.removeValue(forKey: key) } } }
        return try await body()
    }

    /// Lets the same sender's later calls start while this one goes on: call
    /// it once what this call changes is in place (a load announced to the
    /// player), so a slow call never holds up a quick one behind it, and
    /// the quick one still applies after it. Call it from the handler's own
    /// task; elsewhere (outside a call) it does nothing.
    public static func letLaterCallsStart() {
        guard let key = withUnsafeCurrentTask(body: { $0?.hashValue }) else { return }
        gates.withLock { $0[key] }?.open()
    }
}

/// Opens once; `wait()` returns once it is open.
final class CallGate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func open() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.isOpen else { return nil }
            state.isOpen = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiter = continuation }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }
}
