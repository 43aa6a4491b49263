import PodsDBus
import PodsLibrary

/// Runs the library interface's SQLite work on a lane of its own, one job
/// at a time: a long listing page never holds a thread of the cooperative
/// pool that MPRIS calls need, and the interface takes at most one extra
/// thread, whatever clients ask.
enum LibraryWork {
    private static let lane = BlockingLane("pods.library", width: 1)

    /// `body`'s result; a `LibraryError` becomes the interface's error reply.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws(LibraryError) -> T) async throws(DBusError) -> T {
        do throws(LibraryError) {
            return try await lane.run(body)
        } catch {
            throw LibraryPlayer.dbusError(error)
        }
    }
}
