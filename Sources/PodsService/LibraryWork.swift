import Dispatch
import PodsDBus
import PodsLibrary

/// Runs the library interface's SQLite work on a thread of its own.
///
/// GRDB's reads and writes block their thread; on the two-thread
/// cooperative pool of a two-core machine a long listing page would hold
/// one of the threads that MPRIS calls need. This queue is serial, so the
/// library interface takes at most one extra thread, whatever clients ask.
enum LibraryWork {
    private static let queue = DispatchQueue(label: "pods.library", qos: .userInitiated)

    /// `body`'s result; a `LibraryError` becomes the interface's error reply.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws(LibraryError) -> T) async throws(DBusError) -> T {
        let result: Result<T, LibraryError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(LibraryError) { continuation.resume(returning: .success(try body())) } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw LibraryPlayer.dbusError(error)
        }
    }
}
