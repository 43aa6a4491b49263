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
            sql += " ORDER BY episode.published IS NULL, episode.published DESC, episode.feedOrder"
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
    static func merge(_ episodes: [Episode], into podcastId: Int64, _ db: Database) throws -> RefreshSummary {
        var summary = RefreshSummary(podcastId: podcastId, title: "")
        var known: [String: (episode: Episode, feedOrder: Int, inFeed: Bool)] = [:]
        for row in try Row.fetchAll(db, sql: episodeSelect + " WHERE episode.podcastId = ?", arguments: [podcastId]) {
            let stored = episode(from: row)
            known[stored.episode.guid] = (stored.episode, row["feedOrder"], stored.inFeed)
        }
        var seen = Set<String>()
        let encoder = JSONEncoder()
        for (order, episode) in episodes.enumerated() where seen.insert(episode.guid).inserted {
            let values: [(String, (any DatabaseValueConvertible)?)] = [
                ("title", episode.title), ("link", episode.link), ("description", episode.description),
                ("descriptionHTML", episode.descriptionHTML), ("published", episode.published?.timeIntervalSince1970),
                ("duration", episode.duration), ("artworkURL", episode.artworkURL), ("season", episode.season),
                ("number", episode.number), ("episodeType", episode.episodeType), ("explicit", episode.explicit),
                ("author", episode.author), ("chaptersURL", episode.chaptersURL), ("transcriptURL", episode.transcriptURL),
                ("enclosures", String(decoding: try encoder.encode(episode.enclosures), as: UTF8.self)),
                ("chapters", String(decoding: try encoder.encode(episode.chapters), as: UTF8.self)),
                ("persons", String(decoding: try encoder.encode(episode.persons), as: UTF8.self)),
                ("feedOrder", order), ("inFeed", true),
            ]
            if let stored = known[episode.guid] {
                guard stored.episode != episode || stored.feedOrder != order || !stored.inFeed else { continue }
                try db.execute(
                    sql: "UPDATE episode SET " + values.map { "\($0.0) = ?" }.joined(separator: ", ") + " WHERE podcastId = ? AND guid = ?",
                    arguments: StatementArguments(values.map { $0.1 } + [podcastId, episode.guid]))
                if stored.episode != episode { summary.updated += 1 }
            } else {
                try db.execute(
                    sql: "INSERT INTO episode (podcastId, guid, " + values.map(\.0).joined(separator: ", ") + ") VALUES (?, ?, "
                        + Array(repeating: "?", count: values.count).joined(separator: ", ") + ")",
                    arguments: StatementArguments([podcastId, episode.guid] + values.map { $0.1 }))
                summary.added += 1
            }
        }
        for guid in Set(known.keys).subtracting(seen) {
            try db.execute(sql: """
                DELETE FROM episode WHERE podcastId = ? AND guid = ? AND position = 0 AND NOT completed
                    AND NOT currentlyPlaying AND id NOT IN (SELECT episodeId FROM queueItem)
                    AND id NOT IN (SELECT episodeId FROM cachedMedia WHERE pinned)
                """, arguments: [podcastId, guid])
            if db.changesCount > 0 {
                summary.removed += 1
            } else {
                try db.execute(sql: "UPDATE episode SET inFeed = 0 WHERE podcastId = ? AND guid = ?", arguments: [podcastId, guid])
            }
        }
        return summary
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
        episode.description = row["description"]
        episode.descriptionHTML = row["descriptionHTML"]
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
