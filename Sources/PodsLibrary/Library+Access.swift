import GRDB

// MARK: - Reading and writing with one error type

extension Library {
    /// Runs `body` in a read transaction; LibraryErrors pass through, others
    /// become `.database` errors naming the file.
    func reading<T>(_ body: (Database) throws -> T) throws(LibraryError) -> T {
        do {
            return try database.read(body)
        } catch let error as LibraryError {
            throw error
        } catch {
            throw LibraryError(path: database.path, underlying: error)
        }
    }

    /// Runs `body` in one write transaction (all or nothing).
    func writing<T>(_ body: (Database) throws -> T) throws(LibraryError) -> T {
        do {
            return try database.write(body)
        } catch let error as LibraryError {
            throw error
        } catch {
            throw LibraryError(path: database.path, underlying: error)
        }
    }
}

// MARK: - Health

extension Library {
    /// Folds the write-ahead log into the file and empties it, as podsd
    /// stops: the library is then one file of its true size. Best effort: a
    /// reader still open only leaves the log for the next start.
    public func checkpoint() {
        _ = try? database.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
    }

    /// Copies what the write-ahead log holds into the file now (a commit
    /// past 1000 pages of log starts this in the background by itself), on a
    /// connection of its own: the writer goes on meanwhile, and readers are
    /// not waited for.
    public func foldLogIntoFile() { folder.fold() }

    /// Lets go of what only speeds up the next reads: closes the reader
    /// connections (each keeps up to 4 MiB of pages), waiting for the
    /// reads under way, and empties the writer's page cache. For a service
    /// going idle; the next read opens a reader again.
    public func releaseMemory() {
        database.releaseMemory()
    }

    /// SQLite's `PRAGMA integrity_check`: "ok" for a sound file.
    public func integrityCheck() throws(LibraryError) -> String {
        try reading { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ") }
    }
}
