import PodsConcurrency
import PodsLibrary
import Synchronization

/// The library interface's thread: its calls run there (as their tasks'
/// executor), and so does their SQLite work, one job at a time and at a
/// lower priority. A listing page (query, items, marshalling) never holds a
/// thread of the cooperative pool, and the interface takes one thread,
/// whatever clients ask.
package enum LibraryWork {
    package static let lane = BlockingLane("pods.library", width: 1, niceness: 5)

    /// `body`'s result; a `LibraryError` becomes the interface's error reply.
    package static func run<T: Sendable>(_ body: @escaping @Sendable () throws(LibraryError) -> T) async throws(SessionError) -> T {
        try await run(body, errors: SessionError.init)
    }

    /// `body`'s result; a `LibraryError` becomes the caller's own error.
    /// A cancelled caller (its D-Bus call timed out while it waited for the
    /// lane) does not start the work: it fails with `cancelled`.
    package static func run<T: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(LibraryError) -> T, errors: (LibraryError) -> Failure
    ) async throws(Failure) -> T {
        do throws(LibraryError) {
            // The lane's thread is no task's: the caller's cancellation is carried over to it.
            let callerCancelled = Mutex(false)
            let result: Result<T, LibraryError> = await withTaskCancellationHandler {
                do throws(LibraryError) {
                    return .success(try await lane.run { () throws(LibraryError) in
                        guard !callerCancelled.withLock({ $0 }) else { throw cancelled }
                        return try body()
                    })
                } catch {
                    return .failure(error)
                }
            } onCancel: {
                callerCancelled.withLock { $0 = true }
            }
            return try result.get()
        } catch {
            throw errors(error)
        }
    }

    /// `body`'s writes, returning once the library's followers have heard of
    /// them (the caller's answer comes after the signal, and after `CanGoNext` follows).
    package static func edit(_ library: Library, _ body: @escaping @Sendable (Library) throws(LibraryError) -> Void) async throws(SessionError) {
        try await run { () throws(LibraryError) in try body(library) }
        await library.changes.delivered()
    }

    /// What a cancelled caller's work fails with.
    package static let cancelled = LibraryError(.database, "the caller stopped waiting before its library work began")

    /// After a burst of library work, as podsd goes idle: the write-ahead
    /// log is folded into the file, and the readers' page caches, then what
    /// malloc kept of the memory freed, go back to the system (a start-up
    /// or a refresh of a large library leaves megabytes). Run after the
    /// reply, not before: none of it is the caller's business.
    package static func settle(_ library: Library) async {
        await lane.run {
            library.foldLogIntoFile()
            library.releaseMemory()
            // Last, and here rather than on the task pool: trimming a heap
            // that a refresh grew takes milliseconds.
            FreedMemory.giveBack()
        }
    }
}
