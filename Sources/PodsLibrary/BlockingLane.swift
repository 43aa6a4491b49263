import Dispatch

/// Runs blocking work (SQLite, parsing) on threads of its own, at most
/// `width` jobs at once, never on Swift's cooperative pool: on a two-core
/// machine that pool has two threads, and one long parse or write on it
/// would hold up every task of the process (MPRIS calls among them).
/// Callers past the width wait without holding a thread.
public final class BlockingLane: Sendable {
    private let queue: DispatchQueue
    private let gate: AsyncGate

    public init(_ label: String, width: Int) {
        self.queue = DispatchQueue(label: label, qos: .userInitiated, attributes: .concurrent)
        self.gate = AsyncGate(width: width)
    }

    /// `body`'s result, computed on the lane.
    public func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await gate.through {
            await withCheckedContinuation { continuation in
                queue.async {
                    do throws(E) { continuation.resume(returning: .success(try body())) } catch {
                        continuation.resume(returning: .failure(error))
                    }
                }
            }
        }
        return try result.get()
    }
}
