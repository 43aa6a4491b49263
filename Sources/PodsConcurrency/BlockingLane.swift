import Foundation

/// Threads of their own for work that blocks or burns CPU (SQLite,
/// parsing, building and marshalling large replies), never Swift's
/// cooperative pool: on a two-core machine that pool has two threads, and
/// one long parse on it would hold up every task of the process, MPRIS
/// calls among them.
///
/// `width` threads, started at once, sleeping on a condition when idle (no
/// wake-ups). `niceness` lowers their scheduling priority (Linux keeps a nice
/// value per thread), so a refresh parsing on every core still leaves the
/// CPU to the threads that answer the desktop.
///
/// It runs blocking closures (`run`) and is a `TaskExecutor`: tasks started
/// with it as their preference run on its threads, and so do the default
/// actors they call.
public final class BlockingLane: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable, proven: `jobs` and `threads` are read and written
    // only while holding `condition`'s lock; `label` and `niceness` never change.
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []
    private var threads: Set<pthread_t> = []
    private let label: String
    private let niceness: Int32

    /// `label` names the threads (`label-0`, `label-1`… when `width` > 1):
    /// at most 15 bytes with the suffix, or the kernel keeps the creator's
    /// name (what top and perf show).
    public init(_ label: String, width: Int, niceness: Int32 = 0) {
        self.label = label
        self.niceness = niceness
        for index in 0..<max(1, width) {
            let name = width > 1 ? "\(label)-\(index)" : label
            Thread { [self] in work(name: name) }.start()
        }
    }

    /// `body`'s result, computed on one of the lane's threads: at once when
    /// the caller already runs on one (a task that prefers this lane), else
    /// queued for the next free thread.
    public func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        if runsCurrentThread { return try body() }
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            submit {
                do throws(E) { continuation.resume(returning: .success(try body())) } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Whether the caller runs on one of the lane's threads.
    public var runsCurrentThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        return threads.contains(pthread_self())
    }

    // MARK: - TaskExecutor

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        submit { job.runSynchronously(on: executor) }
    }

    // MARK: - The threads

    private func submit(_ job: @escaping () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work(name: String) {
        // Named from inside: Foundation then sets the kernel's name too (what
        // top and perf show); a new thread otherwise keeps its creator's.
        Thread.current.name = name
        if niceness != 0 { setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }  // this thread only, on Linux
        condition.lock()
        threads.insert(pthread_self())
        condition.unlock()
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}
