import PodsConcurrency
import PodsLibrary

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
    package static func run<T: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(LibraryError) -> T, errors: (LibraryError) -> Failure
    ) async throws(Failure) -> T {
        do throws(LibraryError) {
            return try await lane.run(body)
        } catch {
            throw errors(error)
        }
    }

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
