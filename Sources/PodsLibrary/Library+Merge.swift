import Foundation
import GRDB
import PodsFeedParser

/// A parsed feed made ready for the library away from the writer: each
/// item's content hash, and the column values of the items that differ
/// from what the library held when it was prepared. Preparing is the CPU
/// work of storing a feed (hashing, JSON, plain text); it runs on any
/// thread, many feeds at once, so the one writer only executes SQL.
public struct PreparedFeed: Sendable {
    /// The channel's fields (its episodes are in `episodes`).
    let channel: Feed
    let episodes: [PreparedEpisode]
    /// The podcast's episodes as read when the feed was prepared.
    let stored: Library.StoredItems
}

struct PreparedEpisode: Sendable {
    let guid: String
    let hash: Int64
    /// The fingerprint of the item's bytes (`ItemFingerprint`), when it has one.
    let itemHash: Int64?
    /// nil when the library held this content for this guid when the feed
    /// was prepared.
    let row: EpisodeRow?
    /// New to the podcast, and its rule ignores it: stored played and ignored.
    var ignored = false
}

/// An episode's column values: the list's (`episode`) and the detail's
/// (`episodeDetail`), made into statement arguments where the feed is
/// prepared, so that the writer only binds them.
struct EpisodeRow: Sendable {
    static let columns = ["title", "link", "published", "duration", "artworkURL", "season", "number", "episodeType",
                          "explicit", "author", "chaptersURL", "transcriptURL", "enclosures", "contentHash", "itemHash", "seasonName"]
    static let detailColumns = ["description", "descriptionHTML", "chapters", "persons", "soundbites"]

    let values: StatementArguments
    let detail: StatementArguments

    init(_ episode: Episode, hash: Int64) {
        values = [
            episode.title.databaseValue, episode.link.databaseValue, episode.published?.timeIntervalSince1970.databaseValue ?? .null,
            episode.duration.databaseValue, episode.artworkURL.databaseValue, episode.season.databaseValue,
            episode.number.databaseValue, episode.episodeType.databaseValue, episode.explicit.databaseValue,
            episode.author.databaseValue, episode.chaptersURL.databaseValue, episode.transcriptURL.databaseValue,
            episode.enclosures.jsonText.databaseValue, hash.databaseValue,
            episode.fingerprint.map { Int64(bitPattern: $0.value) }.databaseValue, episode.seasonName.databaseValue,
        ]
        detail = [Library.storedDescription(episode).databaseValue, episode.descriptionHTML.databaseValue,
                  episode.chapters.jsonText.databaseValue, episode.persons.jsonText.databaseValue,
                  episode.soundbites.jsonText.databaseValue]
    }
}

extension Library {
    // MARK: Preparing

    /// What a podcast's episodes hold, read before its feed is parsed: each
    /// guid's content hash, and the fingerprints of the items they were
    /// parsed from, which the parser then leaves out (`FeedParser.knownItems`).
    public struct StoredItems: Sendable {
        /// What the merge needs of a stored episode.
        struct Episode: Sendable {
            let id: Int64
            let hash: Int64?
            let inFeed: Bool
            let itemHash: Int64?
        }

        var byGuid: [String: Episode] = [:]
        var byFingerprint: [UInt64: (guid: String, hash: Int64)] = [:]

        /// The fingerprints to leave out of the next parse.
        public var fingerprints: Set<UInt64> { Set(byFingerprint.keys) }

        /// Nothing stored: a new subscription.
        public static let none = StoredItems()
    }

    /// `podcastId`'s stored items. Safe on any thread, beside the writer.
    public func storedItems(_ podcastId: Int64) throws(LibraryError) -> StoredItems {
        try reading { db in try Self.storedItems(podcastId, db) }
    }

    static func storedItems(_ podcastId: Int64, _ db: Database) throws -> StoredItems {
        var stored = StoredItems()
        let rows = try Row.fetchCursor(db, sql: "SELECT id, guid, contentHash, inFeed, itemHash FROM episode WHERE podcastId = ?",
                                       arguments: [podcastId])
        while let row = try rows.next() {
            let guid: String = try row.decode(atIndex: 1)
            let episode = try StoredItems.Episode(id: row.decode(atIndex: 0), hash: row.decode(atIndex: 2), inFeed: row.decode(atIndex: 3),
                                                  itemHash: row.decode(atIndex: 4))
            stored.byGuid[guid] = episode
            if let item = episode.itemHash, let hash = episode.hash { stored.byFingerprint[UInt64(bitPattern: item)] = (guid, hash) }
        }
        return stored
    }

    /// `feed` made ready to store in `podcastId` (nil: a new subscription):
    /// only items whose content the podcast does not hold yet get their
    /// values computed. Safe on any thread, beside the writer.
    public func prepare(_ feed: Feed, for podcastId: Int64?) throws(LibraryError) -> PreparedFeed {
        try prepare(feed, stored: podcastId.map { id throws(LibraryError) in try storedItems(id) } ?? .none)
    }

    /// `feed`, parsed with `stored.fingerprints` known, made ready to store:
    /// the items left out unparsed are the episodes `stored` names. An item
    /// new to the podcast that `ignores` picks is stored ignored.
    public func prepare(_ feed: Feed, stored: StoredItems,
                        ignores: ((ArrivedEpisode) -> Bool)? = nil) throws(LibraryError) -> PreparedFeed {
        var channel = feed
        channel.episodes = []
        channel.skippedItems = []
        var items: [(ordinal: Int, episode: PreparedEpisode)] = []
        items.reserveCapacity(feed.episodes.count + feed.skippedItems.count)
        for (index, episode) in feed.episodes.enumerated() {
            let hash = EpisodeContentHash.of(episode)
            let row = stored.byGuid[episode.guid]?.hash == hash ? nil : EpisodeRow(episode, hash: hash)
            let itemHash = episode.fingerprint.map { Int64(bitPattern: $0.value) }
            var prepared = PreparedEpisode(guid: episode.guid, hash: hash, itemHash: itemHash, row: row)
            if let ignores, stored.byGuid[episode.guid] == nil {
                prepared.ignored = ignores(ArrivedEpisode(id: 0, podcastId: 0, title: episode.title, duration: episode.duration,
                                                          episodeType: episode.episodeType))
            }
            items.append((episode.fingerprint?.ordinal ?? index, prepared))
        }
        for skipped in feed.skippedItems {
            // The parser left out only what `stored` knows.
            guard let known = stored.byFingerprint[skipped.value] else {
                throw LibraryError(.database, "an item left out of the feed is not in the library")
            }
            items.append((skipped.ordinal, PreparedEpisode(guid: known.guid, hash: known.hash, itemHash: Int64(bitPattern: skipped.value), row: nil)))
        }
        // In the document's order (the ordinals of parsed items are theirs when they have fingerprints).
        if !feed.skippedItems.isEmpty { items.sort { $0.ordinal < $1.ordinal } }
        var seen = Set<String>()
        let episodes = items.compactMap { item in seen.insert(item.episode.guid).inserted ? item.episode : nil }
        return PreparedFeed(channel: channel, episodes: episodes, stored: stored)
    }

    // MARK: Merging

    /// Inserts new episodes and updates known ones (by guid), keeping the
    /// listener's status; drops episodes that left the feed unless they
    /// carry progress, are queued, downloaded, bookmarked or playing (those stay, marked
    /// not in the feed).
    ///
    /// An item whose content hash is as stored costs one comparison: nothing
    /// is read back or written for it. (`feedOrder` is the item's place when
    /// it was last written; nothing orders by it, so new items at the top
    /// of a feed do not rewrite the thousands below them.)
    static func merge(_ feed: PreparedFeed, into podcastId: Int64, _ db: Database) throws -> RefreshSummary {
        var summary = RefreshSummary(podcastId: podcastId, title: "")
        // What was read as the feed was prepared (nothing, for a new subscription), unless the
        // podcast's episodes changed since (a count tells: only a refresh of this podcast adds or
        // removes them, and refreshes of one podcast do not overlap); else read here.
        var known = feed.stored.byGuid
        let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM episode WHERE podcastId = ?", arguments: [podcastId]) ?? 0
        if known.count != count { known = try storedItems(podcastId, db).byGuid }
        let columns = EpisodeRow.columns + ["feedOrder", "inFeed"]
        let update = try db.cachedStatement(
            sql: "UPDATE episode SET " + columns.map { "\($0) = ?" }.joined(separator: ", ") + " WHERE id = ?")
        let insert = try db.cachedStatement(
            sql: "INSERT INTO episode (podcastId, guid, " + (columns + ["completed", "ignored"]).joined(separator: ", ") + ") VALUES (?, ?, "
                + Array(repeating: "?", count: columns.count + 2).joined(separator: ", ") + ")")
        let detail = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO episodeDetail (episodeId, " + EpisodeRow.detailColumns.joined(separator: ", ")
                + ") VALUES (?, " + Array(repeating: "?", count: EpisodeRow.detailColumns.count).joined(separator: ", ") + ")")
        let back = try db.cachedStatement(sql: "UPDATE episode SET inFeed = 1 WHERE id = ?")
        let refingerprint = try db.cachedStatement(sql: "UPDATE episode SET itemHash = ? WHERE id = ?")
        var written: [Int64] = []
        for (order, episode) in feed.episodes.enumerated() {
            let stored = known[episode.guid]
            if let stored, stored.hash == episode.hash {
                if !stored.inFeed { try back.execute(arguments: [stored.id]) }
                // The same episode from other bytes (or from before fingerprints were kept).
                if stored.itemHash != episode.itemHash { try refingerprint.execute(arguments: [episode.itemHash, stored.id]) }
                continue
            }
            // Prepared as unchanged, but another refresh of this podcast stored
            // other content since: that stays, and the next refresh settles it.
            guard let row = episode.row else { continue }
            // Bound as they are (the statements and the counts of their arguments
            // are this function's own): no check, no nesting per argument.
            let id: Int64
            if let stored {
                update.setUncheckedArguments(row.values + [order, true, stored.id])
                try update.execute()
                id = stored.id
                summary.updated += 1
            } else {
                insert.setUncheckedArguments([podcastId, episode.guid] + row.values + [order, true, episode.ignored, episode.ignored])
                try insert.execute()
                id = db.lastInsertedRowID
                summary.added += 1
                if episode.ignored { summary.ignored += 1 }
            }
            detail.setUncheckedArguments([id] + row.detail)
            try detail.execute()
            written.append(id)
        }
        try markSearchStale(written, db)
        try markTitlesStale(written, db)
        let seen = Set(feed.episodes.map(\.guid))
        let remove = try db.cachedStatement(sql: """
            DELETE FROM episode WHERE id = ? AND position = 0 AND NOT completed AND NOT currentlyPlaying
                AND id NOT IN (SELECT episodeId FROM queueItem) AND id NOT IN (SELECT episodeId FROM cachedMedia WHERE pinned)
                AND id NOT IN (SELECT episodeId FROM bookmark)
            """)
        let keep = try db.cachedStatement(sql: "UPDATE episode SET inFeed = 0 WHERE id = ?")
        for (guid, stored) in known where !seen.contains(guid) {
            try remove.execute(arguments: [stored.id])
            if db.changesCount > 0 {
                summary.removed += 1
            } else if stored.inFeed {
                try keep.execute(arguments: [stored.id])
            }
        }
        return summary
    }

    /// The plain-text description as stored: empty when the feed gave none
    /// or gave what the HTML reads as, which is then derived on reading
    /// (each description is stored once).
    static func storedDescription(_ episode: Episode) -> String {
        guard let plain = episode.plainDescription else { return "" }
        if let html = episode.descriptionHTML, FeedText.isPlainText(plain, of: html) { return "" }
        return plain
    }
}
