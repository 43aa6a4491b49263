import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// Copies the write-ahead log into the library file beside the writer,
/// never inside it.
///
/// SQLite's writer folds the log into the file itself (an automatic
/// checkpoint) in the commit that takes the log past 1000 pages: a 200-feed
/// import stopped a dozen times to copy tens of megabytes, on the one thread
/// every write waits for. A commit hook replaces that: past `foldAfter`
/// pages it starts a fold on a connection of its own (one at a time, the
/// writer goes on); only past `writerFoldsAfter`, when folds cannot keep up,
/// does the writer fold itself, so the log stays bounded.
final class LogFolder: Sendable {
    /// SQLite's own threshold for its automatic checkpoint.
    static let foldAfter: Int32 = 1000
    static let writerFoldsAfter: Int32 = 16 * 1000

    private let path: String
    private let folding = Mutex(false)
    private let queue = DispatchQueue(label: "pods.library.fold", qos: .utility)

    init(path: String) { self.path = path }

    /// Takes over the writer connection's checkpoints (replacing SQLite's
    /// automatic one).
    func install(on db: Database) {
        // Unretained: the pool's configuration holds this folder for as long
        // as the pool, and with it the writer connection, exists.
        sqlite3_wal_hook(db.sqliteConnection, { context, connection, _, pages in
            guard let context else { return SQLITE_OK }
            if pages >= LogFolder.writerFoldsAfter {
                sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            } else if pages >= LogFolder.foldAfter {
                Unmanaged<LogFolder>.fromOpaque(context).takeUnretainedValue().foldBeside()
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Starts a fold in the background unless one is under way.
    func foldBeside() {
        guard folding.withLock({ started in
            defer { started = true }
            return !started
        }) else { return }
        queue.async { [self] in
            fold()
            folding.withLock { $0 = false }
        }
    }

    /// Folds what it can now, on a connection it closes after: readers are
    /// not waited for (a passive checkpoint; what they still read is copied
    /// the next time).
    func fold() {
        // Opening would make an empty database where the library was removed.
        var configuration = Configuration()
        configuration.busyMode = .timeout(Library.busyTimeout)
        guard FileManager.default.fileExists(atPath: path),
              let checkpointer = try? DatabaseQueue(path: path, configuration: configuration) else { return }
        _ = try? checkpointer.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        try? checkpointer.close()
    }
}
