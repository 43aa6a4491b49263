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
    /// SQLite's `PRAGMA integrity_check`: "ok" for a sound file.
    public func integrityCheck() throws(LibraryError) -> String {
        try reading { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ") }
    }
}
