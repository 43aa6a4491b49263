import Foundation
import GRDB
import PodsFeedParser

// MARK: - Episodes

extension Library {
    /// A podcast's episodes (all podcasts' when nil), newest first.
    public func episodes(podcastId: Int64? = nil, unplayedOnly: Bool = false, limit: Int? = nil) throws(LibraryError) -> [LibraryEpisode] {
        try reading { db in
            var conditions: [String] = []
            var arguments: StatementArguments = []
            if let podcastId {
                _ = try Self.podcast(podcastId, db)
                conditions.append("episode.podcastId = ?")
                arguments += [podcastId]
            }
            if unplayedOnly { conditions.append("NOT episode.completed") }
            var sql = Self.episodeSelect
            if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
            sql += " ORDER BY \(Self.episodeSortKey), episode.id"
            if let limit { sql += " LIMIT \(max(0, limit))" }
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.episode(from:))
        }
    }

    public func episode(_ id: Int64) throws(LibraryError) -> LibraryEpisode {
        try reading { db in try Self.episode(id, db) }
    }

    // MARK: Merging a feed

    /// Inserts new episodes and updates known ones (by guid), keeping the
    /// listener's status; drops episodes that left the feed unless they
    /// carry progress, are queued or are playing (those stay, marked not in the feed).
    ///
    /// An item whose content hash, place and presence are as stored costs
    /// one comparison: nothing is read back or written for it.
    static func merge(_ episodes: [Episode], into podcastId: Int64, _ db: Database) throws -> RefreshSummary {
        var summary = RefreshSummary(podcastId: podcastId, title: "")
        var known: [String: (id: Int64, hash: Int64?, feedOrder: Int, inFeed: Bool)] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT id, guid, contentHash, feedOrder, inFeed FROM episode WHERE podcastId = ?",
                                       arguments: [podcastId])
        while let row = try rows.next() {
            known[row["guid"]] = (row["id"], row["contentHash"], row["feedOrder"], row["inFeed"])
        }
        var seen = Set<String>()
        let encoder = JSONEncoder()
        let columns = ["title", "link", "description", "descriptionHTML", "published", "duration", "artworkURL", "season",
                       "number", "episodeType", "explicit", "author", "chaptersURL", "transcriptURL", "enclosures", "chapters",
                       "persons", "contentHash", "feedOrder", "inFeed"]
        let update = try db.cachedStatement(
            sql: "UPDATE episode SET " + columns.map { "\($0) = ?" }.joined(separator: ", ") + " WHERE id = ?")
        let insert = try db.cachedStatement(
            sql: "INSERT INTO episode (podcastId, guid, " + columns.joined(separator: ", ") + ") VALUES (?, ?, "
                + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")")
        let reorder = try db.cachedStatement(sql: "UPDATE episode SET feedOrder = ?, inFeed = 1 WHERE id = ?")
        for (order, episode) in episodes.enumerated() where seen.insert(episode.guid).inserted {
            let hash = EpisodeContentHash.of(episode)
            let stored = known[episode.guid]
            if let stored, stored.hash == hash {
                if stored.feedOrder != order || !stored.inFeed { try reorder.execute(arguments: [order, stored.id]) }
                continue
            }
            let values: [(any DatabaseValueConvertible)?] = [
                episode.title, episode.link, storedDescription(episode), episode.descriptionHTML,
                episode.published?.timeIntervalSince1970, episode.duration, episode.artworkURL, episode.season,
                episode.number, episode.episodeType, episode.explicit, episode.author, episode.chaptersURL, episode.transcriptURL,
                String(decoding: try encoder.encode(episode.enclosures), as: UTF8.self),
                String(decoding: try encoder.encode(episode.chapters), as: UTF8.self),
                String(decoding: try encoder.encode(episode.persons), as: UTF8.self),
                hash, order, true,
            ]
            if let stored {
                try update.execute(arguments: StatementArguments(values + [stored.id]))
                summary.updated += 1
            } else {
                try insert.execute(arguments: StatementArguments([podcastId, episode.guid] + values))
                summary.added += 1
            }
        }
        let remove = try db.cachedStatement(sql: """
            DELETE FROM episode WHERE id = ? AND position = 0 AND NOT completed AND NOT currentlyPlaying
                AND id NOT IN (SELECT episodeId FROM queueItem) AND id NOT IN (SELECT episodeId FROM cachedMedia WHERE pinned)
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

    /// The plain-text description as stored: empty when it is what the
    /// HTML reads as, which is then derived on reading (each description is
    /// stored once).
    static func storedDescription(_ episode: Episode) -> String {
        guard let html = episode.descriptionHTML, FeedText.plainText(fromHTML: html) == episode.description else {
            return episode.description
        }
        return ""
    }

    // MARK: Rows

    static let episodeSelect = """
        SELECT episode.*, podcast.title AS podcastTitle, podcast.artworkURL AS podcastArtworkURL,
            podcast.author AS podcastAuthor
        FROM episode JOIN podcast ON podcast.id = episode.podcastId
        """

    static func episode(_ id: Int64, _ db: Database) throws -> LibraryEpisode {
        guard let row = try Row.fetchOne(db, sql: episodeSelect + " WHERE episode.id = ?", arguments: [id]) else {
            throw LibraryError(.notFound, "no episode has id \(id)")
        }
        return episode(from: row)
    }

    static func episode(from row: Row) -> LibraryEpisode {
        let decoder = JSONDecoder()
        func decoded<T: Decodable>(_ column: String, as type: [T].Type) -> [T] {
            guard let text: String = row[column] else { return [] }
            return (try? decoder.decode(type, from: Data(text.utf8))) ?? []
        }
        var episode = Episode()
        episode.guid = row["guid"]
        episode.title = row["title"]
        episode.link = row["link"]
        episode.descriptionHTML = row["descriptionHTML"]
        episode.description = row["description"]
        if episode.description.isEmpty, let html = episode.descriptionHTML { episode.description = FeedText.plainText(fromHTML: html) }
        episode.published = (row["published"] as Double?).map(Date.init(timeIntervalSince1970:))
        episode.duration = row["duration"]
        episode.enclosures = decoded("enclosures", as: [Enclosure].self)
        episode.artworkURL = row["artworkURL"]
        episode.season = row["season"]
        episode.number = row["number"]
        episode.episodeType = row["episodeType"]
        episode.explicit = row["explicit"]
        episode.author = row["author"]
        episode.chapters = decoded("chapters", as: [Chapter].self)
        episode.chaptersURL = row["chaptersURL"]
        episode.transcriptURL = row["transcriptURL"]
        episode.persons = decoded("persons", as: [Person].self)
        return LibraryEpisode(
            id: row["id"], podcastId: row["podcastId"], episode: episode, position: row["position"],
            completed: row["completed"], lastPlayedAt: (row["lastPlayedAt"] as Double?).map(Date.init(timeIntervalSince1970:)),
            currentlyPlaying: row["currentlyPlaying"], inFeed: row["inFeed"],
            podcastTitle: row["podcastTitle"] ?? "", podcastAuthor: row["podcastAuthor"], podcastArtworkURL: row["podcastArtworkURL"])
    }
}
