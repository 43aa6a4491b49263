import GRDB

/// What a refresh needs of a podcast: its feed's address, the validators of
/// the last fetch, and its title. Read by primary key alone, where
/// `Library.podcast(_:)` also counts the podcast's episodes (reading every
/// one of them: twice per feed, it was most of a 200-feed refresh that
/// found nothing new).
public struct FeedSource: Sendable, Equatable {
    public let podcastId: Int64
    public let feedURL: String
    public let title: String
    public let etag: String?
    public let lastModified: String?
}

extension Library {
    /// Podcast `podcastId`'s feed source; fails with `.notFound` for an unknown id.
    public func feedSource(_ podcastId: Int64) throws(LibraryError) -> FeedSource {
        try reading { db in try Self.feedSource(podcastId, db) }
    }

    static func feedSource(_ podcastId: Int64, _ db: Database) throws -> FeedSource {
        guard let row = try Row.fetchOne(db, sql: "SELECT feedURL, title, etag, lastModified FROM podcast WHERE id = ?",
                                         arguments: [podcastId]) else {
            throw LibraryError(.notFound, "no podcast has id \(podcastId)")
        }
        return try FeedSource(podcastId: podcastId, feedURL: row.decode(atIndex: 0), title: row.decode(atIndex: 1),
                              etag: row.decode(atIndex: 2), lastModified: row.decode(atIndex: 3))
    }
}
