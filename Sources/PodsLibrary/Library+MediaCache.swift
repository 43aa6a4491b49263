import Foundation
import GRDB

/// What the library records about an episode's cached audio: where it came
/// from, how to validate it, and which of its bytes are safely on disk.
public struct CachedMedia: Sendable, Equatable {
    public var episodeId: Int64
    /// The enclosure URL the cache was filled from.
    public var url: String
    /// Where the bytes came from after redirects (CDN URLs change between sessions).
    public var finalURL: String?
    /// The whole file's length in bytes.
    public var length: Int64
    public var etag: String?
    public var lastModified: String?
    /// False for a server that answers Range requests with the whole file.
    public var acceptsRanges = true
    /// The scratch file's name inside the media cache directory.
    public var fileName: String
    public var validatedAt: Date
    public var lastAccess: Date
    /// Every byte is on disk: the file is the episode's download.
    public var complete = false
    /// Downloaded on purpose (`pods download`, auto-download): never evicted.
    public var pinned = false
    /// The byte ranges `[start, end)` known to be on disk, sorted and disjoint.
    public var ranges: [Range<Int64>] = []

    public init(episodeId: Int64, url: String, finalURL: String?, length: Int64, etag: String?, lastModified: String?,
                acceptsRanges: Bool = true, fileName: String, validatedAt: Date = Date(), lastAccess: Date = Date()) {
        self.episodeId = episodeId
        self.url = url
        self.finalURL = finalURL
        self.length = length
        self.etag = etag
        self.lastModified = lastModified
        self.acceptsRanges = acceptsRanges
        self.fileName = fileName
        self.validatedAt = validatedAt
        self.lastAccess = lastAccess
    }

    /// How many bytes are on disk.
    public var cachedBytes: Int64 { ranges.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) } }
}

/// Artwork kept in the cache directory, with what revalidates it.
public struct CachedArtwork: Sendable, Equatable {
    public var url: String
    public var fileName: String
    public var etag: String?
    public var lastModified: String?
    public var validatedAt: Date

    public init(url: String, fileName: String, etag: String?, lastModified: String?, validatedAt: Date = Date()) {
        self.url = url
        self.fileName = fileName
        self.etag = etag
        self.lastModified = lastModified
        self.validatedAt = validatedAt
    }
}

// MARK: - Cached media

extension Library {
    /// The cache record of an episode, with its ranges; nil when nothing is cached.
    public func cachedMedia(_ episodeID: Int64) throws(LibraryError) -> CachedMedia? {
        try reading { db in try Self.cachedMedia(episodeID, db) }
    }

    /// Every cache record, least recently used first.
    public func allCachedMedia() throws(LibraryError) -> [CachedMedia] {
        try reading { db in
            let ids = try Int64.fetchAll(db, sql: "SELECT episodeId FROM cachedMedia ORDER BY lastAccess, episodeId")
            return try ids.compactMap { try Self.cachedMedia($0, db) }
        }
    }

    /// Writes the record and replaces its ranges, in one transaction. Call
    /// it only after the bytes the ranges name are durable (`fdatasync`):
    /// a crash may then lose a record of bytes, never record missing ones.
    /// Does nothing when the episode is gone from the library.
    public func saveCachedMedia(_ media: CachedMedia) throws(LibraryError) {
        try writing { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM episode WHERE id = ?", arguments: [media.episodeId]) != nil else {
                return
            }
            try db.execute(sql: """
                INSERT INTO cachedMedia (episodeId, url, finalURL, length, etag, lastModified, acceptsRanges, fileName,
                                         validatedAt, lastAccess, complete, pinned)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(episodeId) DO UPDATE SET url = excluded.url, finalURL = excluded.finalURL,
                    length = excluded.length, etag = excluded.etag, lastModified = excluded.lastModified,
                    acceptsRanges = excluded.acceptsRanges, fileName = excluded.fileName,
                    validatedAt = excluded.validatedAt, lastAccess = excluded.lastAccess,
                    complete = excluded.complete, pinned = excluded.pinned
                """, arguments: [
                    media.episodeId, media.url, media.finalURL, media.length, media.etag, media.lastModified,
                    media.acceptsRanges, media.fileName, media.validatedAt.timeIntervalSince1970,
                    media.lastAccess.timeIntervalSince1970, media.complete, media.pinned,
                ])
            try db.execute(sql: "DELETE FROM cachedRange WHERE episodeId = ?", arguments: [media.episodeId])
            for range in media.ranges {
                try db.execute(sql: #"INSERT INTO cachedRange (episodeId, start, "end") VALUES (?, ?, ?)"#,
                               arguments: [media.episodeId, range.lowerBound, range.upperBound])
            }
        }
    }

    /// Marks a cache as an explicit download (never evicted), or not.
    public func setCachedMediaPinned(_ episodeID: Int64, _ pinned: Bool) throws(LibraryError) {
        try writing { db in
            try db.execute(sql: "UPDATE cachedMedia SET pinned = ? WHERE episodeId = ?", arguments: [pinned, episodeID])
        }
    }

    /// Forgets an episode's cache (its ranges go with it). Delete the file
    /// after this returns, so a crash leaves an orphan file, never a record
    /// of missing bytes.
    public func deleteCachedMedia(_ episodeID: Int64) throws(LibraryError) {
        try writing { db in
            try db.execute(sql: "DELETE FROM cachedMedia WHERE episodeId = ?", arguments: [episodeID])
        }
    }

    static func cachedMedia(_ episodeID: Int64, _ db: Database) throws -> CachedMedia? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM cachedMedia WHERE episodeId = ?", arguments: [episodeID]) else {
            return nil
        }
        var media = try CachedMedia(
            episodeId: row.decode(forColumn: "episodeId"), url: row.decode(forColumn: "url"), finalURL: row.decode(forColumn: "finalURL"), length: row.decode(forColumn: "length"),
            etag: row.decode(forColumn: "etag"), lastModified: row.decode(forColumn: "lastModified"), acceptsRanges: row.decode(forColumn: "acceptsRanges"),
            fileName: row.decode(forColumn: "fileName"), validatedAt: Date(timeIntervalSince1970: row.decode(forColumn: "validatedAt")),
            lastAccess: Date(timeIntervalSince1970: row.decode(forColumn: "lastAccess")))
        media.complete = try row.decode(forColumn: "complete")
        media.pinned = try row.decode(forColumn: "pinned")
        media.ranges = try Row.fetchAll(
            db, sql: #"SELECT start, "end" FROM cachedRange WHERE episodeId = ? ORDER BY start"#, arguments: [episodeID]
        ).compactMap { row -> Range<Int64>? in
            let start: Int64 = try row.decode(forColumn: "start"), end: Int64 = try row.decode(forColumn: "end")
            return start < end ? start..<end : nil
        }
        return media
    }
}

// MARK: - Artwork

extension Library {
    public func cachedArtwork(_ url: String) throws(LibraryError) -> CachedArtwork? {
        try reading { db in
            try Row.fetchOne(db, sql: "SELECT * FROM artwork WHERE url = ?", arguments: [url]).map { row in
                try CachedArtwork(url: row.decode(forColumn: "url"), fileName: row.decode(forColumn: "fileName"),
                                  etag: row.decode(forColumn: "etag"), lastModified: row.decode(forColumn: "lastModified"),
                                  validatedAt: Date(timeIntervalSince1970: row.decode(forColumn: "validatedAt")))
            }
        }
    }

    public func saveCachedArtwork(_ artwork: CachedArtwork) throws(LibraryError) {
        try writing { db in
            try db.execute(sql: """
                INSERT INTO artwork (url, fileName, etag, lastModified, validatedAt) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(url) DO UPDATE SET fileName = excluded.fileName, etag = excluded.etag,
                    lastModified = excluded.lastModified, validatedAt = excluded.validatedAt
                """, arguments: [artwork.url, artwork.fileName, artwork.etag, artwork.lastModified,
                                 artwork.validatedAt.timeIntervalSince1970])
        }
    }
}

// MARK: - Download settings

extension Library {
    /// Downloads the `count` newest episodes of a podcast after each refresh (0: none).
    public func setAutoDownload(_ podcastID: Int64, count: Int) throws(LibraryError) {
        try writing { db in
            _ = try Self.feedSource(podcastID, db)  // that it exists
            try db.execute(sql: "UPDATE podcast SET autoDownload = ? WHERE id = ?", arguments: [max(0, count), podcastID])
        }
    }

    /// The cache's storage budget in bytes (nil: the default).
    public func cacheBudget() throws(LibraryError) -> Int64? {
        try reading { db in
            try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'cacheBudget'").flatMap { Int64($0) }
        }
    }

    public func setCacheBudget(_ bytes: Int64) throws(LibraryError) {
        try writing { db in
            try db.execute(
                sql: "INSERT INTO setting (key, value) VALUES ('cacheBudget', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [String(bytes)])
        }
    }

    /// Ids of the episodes the listener finished: what eviction takes first.
    public func completedEpisodes() throws(LibraryError) -> Set<Int64> {
        try reading { db in Set(try Int64.fetchAll(db, sql: "SELECT id FROM episode WHERE completed")) }
    }

    /// Ids of the episodes in the queue or playing: what eviction must keep.
    public func episodesInUse() throws(LibraryError) -> Set<Int64> {
        try reading { db in
            Set(try Int64.fetchAll(db, sql: "SELECT episodeId FROM queueItem UNION SELECT id FROM episode WHERE currentlyPlaying"))
        }
    }
}
