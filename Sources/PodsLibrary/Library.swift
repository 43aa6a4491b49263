import Foundation
import GRDB

/// The podcast library: one SQLite file, `library.sqlite`, in the data
/// directory, in WAL mode, with versioned migrations.
///
/// Today it keeps the player's settings; podcasts, episodes and progress
/// join it as further migrations.
public final class Library: Sendable {
    /// The file name inside the data directory.
    public static let fileName = "library.sqlite"

    private let database: DatabasePool

    /// Opens (creating and migrating if needed) the library in `directory`.
    public init(directory: URL) throws(LibraryError) {
        let path = directory.appendingPathComponent(Self.fileName).path
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            database = try DatabasePool(path: path)
            try Self.migrator.migrate(database)
        } catch {
            throw LibraryError(path: path, underlying: error)
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: settings") { db in
            try db.create(table: "setting") { table in
                table.primaryKey("key", .text)
                table.column("value", .text).notNull()
            }
        }
        return migrator
    }

    // MARK: - Settings

    /// The saved playback settings; defaults for what was never saved or
    /// cannot be read back as a number.
    public func playbackSettings() throws(LibraryError) -> PlaybackSettings {
        do {
            return try database.read { db in
                var settings = PlaybackSettings()
                if let rate = try Double.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'rate'"), rate.isFinite {
                    settings.rate = rate
                }
                if let volume = try Double.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'volume'"), volume.isFinite {
                    settings.volume = volume
                }
                return settings
            }
        } catch {
            throw LibraryError(path: database.path, underlying: error)
        }
    }

    /// Saves the playback settings in one transaction.
    public func save(_ settings: PlaybackSettings) throws(LibraryError) {
        do {
            try database.write { db in
                for (key, value) in [("rate", settings.rate), ("volume", settings.volume)] {
                    try db.execute(
                        sql: "INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                        arguments: [key, String(value)])
                }
            }
        } catch {
            throw LibraryError(path: database.path, underlying: error)
        }
    }
}

/// Speed and volume, kept across restarts.
public struct PlaybackSettings: Sendable, Equatable {
    public var rate: Double = 1
    public var volume: Double = 1

    public init(rate: Double = 1, volume: Double = 1) {
        self.rate = rate
        self.volume = volume
    }
}

/// The library file could not be opened, read or written.
public struct LibraryError: Error, CustomStringConvertible {
    public var path: String
    public var underlying: any Error

    public var description: String {
        let reason = (underlying as? DatabaseError)?.message ?? String(describing: underlying)
        return "library \(path): \(reason)"
    }
}
