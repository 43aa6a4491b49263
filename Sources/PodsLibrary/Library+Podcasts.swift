import Foundation
import GRDB
import PodsFeedParser

// MARK: - Podcasts

extension Library {
    /// Subscribes to a parsed feed fetched from `feedURL`; fails with
    /// `.duplicate` when already subscribed (by URL).
    public func subscribe(feedURL: String, feed: Feed, etag: String?, lastModified: String?,
                          at now: Date = Date()) throws(LibraryError) -> Podcast {
        try subscribe(feedURL: feedURL, prepared: try prepare(feed, for: nil), etag: etag, lastModified: lastModified, at: now)
    }

    /// Subscribes to a feed prepared with `prepare(_:for: nil)`, as a
    /// podcast of its own. A subscription's identity is its feed URL: a
    /// feed that repeats another's `podcast:guid` and title (any feed can:
    /// both are public) is a new podcast, never that one moved (REVIEW-4,
    /// N2: such a feed took the subscription over, deleting its unplayed
    /// episodes). A podcast moves only on proof from its own feed — a
    /// permanent redirect, or its `itunes:new-feed-url` — which the
    /// refresher follows (`moveFeed`); `podcasts(sharingGuidWith:)` finds the
    /// candidate to show the listener.
    public func subscribe(feedURL: String, prepared: PreparedFeed, etag: String?, lastModified: String?,
                          at now: Date = Date()) throws(LibraryError) -> Podcast {
        let feed = prepared.channel
        let podcast = try writing { db in
            if let existing = try String.fetchOne(db, sql: "SELECT title FROM podcast WHERE feedURL = ?", arguments: [feedURL]) {
                throw LibraryError(.duplicate, "already subscribed to \(existing) (\(feedURL))")
            }
            try db.execute(sql: """
                INSERT INTO podcast (feedURL, title, author, description, artworkURL, link, language, subscribedAt,
                                     etag, lastModified, lastRefreshedAt, serial, details)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [feedURL, Self.title(of: feed, feedURL), feed.author, feed.description, feed.artworkURL,
                                 feed.link, feed.language, now.timeIntervalSince1970, etag, lastModified,
                                 now.timeIntervalSince1970, feed.type == "serial", feed.details.jsonText])
            let id = db.lastInsertedRowID
            _ = try Self.merge(prepared, into: id, db)
            try Self.recordSubscription(feedURL, subscribed: true, at: now, db)
            return try Self.podcast(id, db)
        }
        changes.post(LibraryChanges(episodes: .init([podcast.id])))  // the change observer watches no episode rows
        matchTitlesSoon()
        return podcast
    }

    /// The other subscriptions whose feeds give `podcastID`'s `podcast:guid`:
    /// shows it may be a copy or a new home of, for the listener to judge.
    public func podcasts(sharingGuidWith podcastID: Int64) throws(LibraryError) -> [Podcast] {
        try reading { db in
            let ids = try Int64.fetchAll(db, sql: """
                SELECT other.id FROM podcast AS this JOIN podcast AS other
                  ON other.details ->> 'guid' = this.details ->> 'guid' AND other.id != this.id
                WHERE this.id = ? AND this.details ->> 'guid' IS NOT NULL ORDER BY other.id LIMIT 10
                """, arguments: [podcastID])
            return try ids.map { id throws in try Self.podcast(id, db) }
        }
    }

    /// Removes a podcast, its episodes and their queue entries. With
    /// `feedURL`, only while the podcast is still at that URL, read in the
    /// same write (a sync's remove of an address the podcast has moved from
    /// removes nothing: REVIEW-4, N1); whether it was removed.
    @discardableResult
    public func unsubscribe(_ id: Int64, ifAt feedURL: String? = nil, at now: Date = Date()) throws(LibraryError) -> Bool {
        try writing { db in
            let podcast = try Self.feedSource(id, db)
            if let feedURL, podcast.feedURL != feedURL { return false }
            let kept = try Bool.fetchOne(db, sql: "SELECT 1 FROM podcastSetting WHERE podcastId = ? AND key = 'sync' AND value = 'false'",
                                         arguments: [id]) != nil
            try db.execute(sql: "DELETE FROM podcast WHERE id = ?", arguments: [id])
            // A podcast kept off the sync server leaves it no trace either.
            if kept {
                try db.execute(sql: "DELETE FROM syncSubscription WHERE feedURL = ?", arguments: [podcast.feedURL])
            } else {
                try Self.recordSubscription(podcast.feedURL, subscribed: false, at: now, db)
            }
            return true
        }
    }

    /// Every subscription's feed URL and `podcast:guid`.
    public struct Subscribed: Sendable {
        public var feedURLs: Set<String> = []
        public var guids: Set<String> = []

        public init() {}

        /// Whether a show named by either is one of them.
        public func contains(feedURL: String?, guid: String?) -> Bool {
            feedURL.map(feedURLs.contains) == true || guid.map(guids.contains) == true
        }
    }

    /// Every subscription's feed URL and guid (a podroll's shows are marked with them).
    public func subscribed() throws(LibraryError) -> Subscribed {
        try reading { db in
            var subscribed = Subscribed()
            for row in try Row.fetchAll(db, sql: "SELECT feedURL, details ->> 'guid' FROM podcast") {
                subscribed.feedURLs.insert(row[0])
                if let guid: String = row[1] { subscribed.guids.insert(guid) }
            }
            return subscribed
        }
    }

    /// Every subscription, newest first, with episode counts.
    public func podcasts() throws(LibraryError) -> [Podcast] {
        try reading { db in
            try Row.fetchAll(db, sql: Self.podcastSelect + " ORDER BY subscribedAt DESC, id DESC").map(Self.podcast(from:))
        }
    }

    /// The podcasts that want their newest unplayed episodes downloaded,
    /// and how many each (no episode counts read, as `podcasts()` does).
    public func autoDownloadTargets() throws(LibraryError) -> [(podcastId: Int64, count: Int)] {
        try reading { db in
            try Row.fetchAll(db, sql: "SELECT id, autoDownload FROM podcast WHERE autoDownload > 0 ORDER BY subscribedAt DESC, id DESC")
                .map { row in try (row.decode(atIndex: 0), row.decode(atIndex: 1)) }
        }
    }

    /// Every podcast's artwork address, newest subscription first (no
    /// episode counts read, as `podcasts()` does).
    public func podcastArtworkURLs() throws(LibraryError) -> [String] {
        try reading { db in
            try String.fetchAll(db, sql: "SELECT artworkURL FROM podcast WHERE artworkURL IS NOT NULL ORDER BY subscribedAt DESC, id DESC")
        }
    }

    /// Every podcast's id, newest subscription first.
    public func podcastIDs() throws(LibraryError) -> [Int64] {
        try reading { db in try Int64.fetchAll(db, sql: "SELECT id FROM podcast ORDER BY subscribedAt DESC, id DESC") }
    }

    /// The podcast subscribed at exactly this feed URL, if any.
    public func podcast(feedURL: String) throws(LibraryError) -> Podcast? {
        try reading { db in
            try Row.fetchOne(db, sql: Self.podcastSelect + " WHERE feedURL = ?", arguments: [feedURL]).map(Self.podcast(from:))
        }
    }

    public func podcast(_ id: Int64) throws(LibraryError) -> Podcast {
        try reading { db in try Self.podcast(id, db) }
    }

    /// A podcast by id, or by a title prefix (case-insensitive) that fits exactly one.
    public func podcast(matching text: String) throws(LibraryError) -> Podcast {
        try reading { db in
            if let id = Int64(text) { return try Self.podcast(id, db) }
            let all = try Row.fetchAll(db, sql: Self.podcastSelect).map(Self.podcast(from:))
            let matches = all.filter { $0.title.lowercased().hasPrefix(text.lowercased()) }
            if matches.count == 1, let only = matches.first { return only }
            if let exact = matches.first(where: { $0.title.lowercased() == text.lowercased() }) { return exact }
            if matches.isEmpty { throw LibraryError(.notFound, "no podcast is called \(text)") }
            throw LibraryError(.ambiguous, "\"\(text)\" fits \(matches.count) podcasts: "
                               + matches.map { "\($0.id) \($0.title)" }.joined(separator: ", "))
        }
    }

    // MARK: Refresh results

    /// Stores a refreshed feed: episodes updated in place by guid, new ones
    /// added, and those gone from the feed removed unless the listener has
    /// progress on them (or they are queued or playing).
    public func applyRefresh(_ podcastId: Int64, feed: Feed, etag: String?, lastModified: String?,
                             movedTo newURL: String? = nil, at now: Date = Date()) throws(LibraryError) -> RefreshSummary {
        try applyRefresh(podcastId, prepared: try prepare(feed, for: podcastId), etag: etag, lastModified: lastModified,
                         movedTo: newURL, at: now)
    }

    /// Stores a refreshed feed prepared with `prepare(_:for: podcastId)`, in one transaction.
    public func applyRefresh(_ podcastId: Int64, prepared: PreparedFeed, etag: String?, lastModified: String?,
                             movedTo newURL: String? = nil, at now: Date = Date()) throws(LibraryError) -> RefreshSummary {
        let feed = prepared.channel
        let summary = try writing { db in
            let podcast = try Self.feedSource(podcastId, db)
            var summary = try Self.merge(prepared, into: podcastId, db)
            try Self.updateChannel(podcastId, feed, feedURL: podcast.feedURL, etag: etag, lastModified: lastModified, at: now, db)
            if let newURL, newURL != podcast.feedURL { try Self.moveFeed(podcastId, from: podcast.feedURL, to: newURL, at: now, db) }
            summary.title = Self.title(of: feed, podcast.feedURL)
            return summary
        }
        // Once per feed: the change observer watches no episode rows (LibraryChangeObserver says why).
        if summary.changed {
            changes.post(LibraryChanges(episodes: .init([podcastId])))
            matchTitlesSoon()
        }
        return summary
    }

    /// Writes what a full fetch read of the channel.
    private static func updateChannel(_ podcastId: Int64, _ feed: Feed, feedURL: String, etag: String?, lastModified: String?,
                                      at now: Date, _ db: Database) throws {
        try db.execute(sql: """
            UPDATE podcast SET title = ?, author = ?, description = ?, artworkURL = ?, link = ?, language = ?,
                etag = ?, lastModified = ?, lastRefreshedAt = ?, lastError = NULL, refreshFailures = 0, serial = ?, details = ? WHERE id = ?
            """, arguments: [Self.title(of: feed, feedURL), feed.author, feed.description, feed.artworkURL,
                             feed.link, feed.language, etag, lastModified, now.timeIntervalSince1970, feed.type == "serial",
                             feed.details.jsonText, podcastId])
    }

    /// Records a 304: nothing changed, the podcast was checked.
    public func markNotModified(_ podcastId: Int64, movedTo newURL: String? = nil, at now: Date = Date()) throws(LibraryError) -> RefreshSummary {
        try writing { db in
            let podcast = try Self.feedSource(podcastId, db)
            try db.execute(sql: "UPDATE podcast SET lastRefreshedAt = ?, lastError = NULL, refreshFailures = 0 WHERE id = ?",
                           arguments: [now.timeIntervalSince1970, podcastId])
            if let newURL, newURL != podcast.feedURL { try Self.moveFeed(podcastId, from: podcast.feedURL, to: newURL, at: now, db) }
            return RefreshSummary(podcastId: podcastId, title: podcast.title, notModified: true)
        }
    }

    /// A feed that moved for good (every redirect permanent): the podcast
    /// lives at `newURL` from now on (unless another podcast is there), and
    /// the sync server hears of the move as a remove and an add.
    static func moveFeed(_ podcastId: Int64, from oldURL: String, to newURL: String, at now: Date, _ db: Database) throws {
        try db.execute(sql: "UPDATE OR IGNORE podcast SET feedURL = ? WHERE id = ?", arguments: [newURL, podcastId])
        guard db.changesCount > 0 else { return }
        try recordSubscription(oldURL, subscribed: false, at: now, db)
        try recordSubscription(newURL, subscribed: true, at: now, db)
    }

    /// Records why a refresh failed; everything else stays as it was.
    public func markRefreshFailed(_ podcastId: Int64, error message: String, at now: Date = Date()) throws(LibraryError) -> RefreshSummary {
        try writing { db in
            let podcast = try Self.feedSource(podcastId, db)
            try db.execute(sql: "UPDATE podcast SET lastRefreshedAt = ?, lastError = ?, refreshFailures = refreshFailures + 1 WHERE id = ?",
                           arguments: [now.timeIntervalSince1970, message, podcastId])
            return RefreshSummary(podcastId: podcastId, title: podcast.title, error: message)
        }
    }

    // MARK: Rows

    static let podcastSelect = """
        SELECT podcast.*,
            (SELECT COUNT(*) FROM episode WHERE podcastId = podcast.id) AS episodeCount,
            (SELECT COUNT(*) FROM episode WHERE podcastId = podcast.id AND NOT completed) AS unplayedCount
        FROM podcast
        """

    static func podcast(_ id: Int64, _ db: Database) throws -> Podcast {
        guard let row = try Row.fetchOne(db, sql: podcastSelect + " WHERE id = ?", arguments: [id]) else {
            throw LibraryError(.notFound, "no podcast has id \(id)")
        }
        return try podcast(from: row)
    }

    static func podcast(from row: Row) throws -> Podcast {
        try Podcast(
            id: row.decode(forColumn: "id"), feedURL: row.decode(forColumn: "feedURL"), title: row.decode(forColumn: "title"), author: row.decode(forColumn: "author"),
            description: row.decode(forColumn: "description"), artworkURL: row.decode(forColumn: "artworkURL"), link: row.decode(forColumn: "link"), language: row.decode(forColumn: "language"),
            subscribedAt: Date(timeIntervalSince1970: row.decode(forColumn: "subscribedAt")), etag: row.decode(forColumn: "etag"), lastModified: row.decode(forColumn: "lastModified"),
            lastRefreshedAt: (row.decode(forColumn: "lastRefreshedAt") as Double?).map(Date.init(timeIntervalSince1970:)),
            lastError: row.decode(forColumn: "lastError"), autoDownload: row.decode(forColumn: "autoDownload") ?? 0,
            refreshFailures: row.decode(forColumn: "refreshFailures") ?? 0, serial: row.decode(forColumn: "serial") ?? false,
            details: (row.decode(forColumn: "details") as String?).flatMap { try? JSONDecoder().decode(ChannelDetails.self, from: Data($0.utf8)) }
                ?? ChannelDetails(),
            episodeCount: row.decode(forColumn: "episodeCount") ?? 0, unplayedCount: row.decode(forColumn: "unplayedCount") ?? 0)
    }

    private static func title(of feed: Feed, _ feedURL: String) -> String {
        feed.title.isEmpty ? feedURL : feed.title
    }
}
