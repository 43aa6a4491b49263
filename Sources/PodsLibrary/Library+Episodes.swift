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

    // MARK: Rows

    static let episodeSelect = """
        SELECT episode.*, episodeDetail.description, episodeDetail.descriptionHTML, episodeDetail.chapters,
            episodeDetail.persons, podcast.title AS podcastTitle, podcast.artworkURL AS podcastArtworkURL,
            podcast.author AS podcastAuthor
        FROM episode JOIN podcast ON podcast.id = episode.podcastId
            LEFT JOIN episodeDetail ON episodeDetail.episodeId = episode.id
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
        let plain: String? = row["description"]
        // Empty: derived from the HTML when read (or none at all).
        episode.plainDescription = plain?.isEmpty == false || episode.descriptionHTML == nil ? plain ?? "" : nil
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
