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
                _ = try Self.feedSource(podcastId, db)  // that it exists
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
            episodeDetail.persons, episodeDetail.soundbites, podcast.title AS podcastTitle, podcast.artworkURL AS podcastArtworkURL,
            podcast.author AS podcastAuthor, podcast.feedURL AS podcastFeedURL
        FROM episode JOIN podcast ON podcast.id = episode.podcastId
            LEFT JOIN episodeDetail ON episodeDetail.episodeId = episode.id
        """

    static func episode(_ id: Int64, _ db: Database) throws -> LibraryEpisode {
        guard let row = try Row.fetchOne(db, sql: episodeSelect + " WHERE episode.id = ?", arguments: [id]) else {
            throw LibraryError(.notFound, "no episode has id \(id)")
        }
        return try episode(from: row)
    }

    static func episode(from row: Row) throws -> LibraryEpisode {
        let decoder = JSONDecoder()
        func decoded<T: Decodable>(_ column: String, as type: [T].Type) throws -> [T] {
            guard let text: String = try row.decode(forColumn: column) else { return [] }
            return (try? decoder.decode(type, from: Data(text.utf8))) ?? []
        }
        var episode = Episode()
        episode.guid = try row.decode(forColumn: "guid")
        episode.title = try row.decode(forColumn: "title")
        episode.link = try row.decode(forColumn: "link")
        episode.descriptionHTML = try row.decode(forColumn: "descriptionHTML")
        let plain: String? = try row.decode(forColumn: "description")
        // Empty: derived from the HTML when read (or none at all).
        episode.plainDescription = plain?.isEmpty == false || episode.descriptionHTML == nil ? plain ?? "" : nil
        episode.published = try row.storedDate("published")
        episode.duration = try row.storedSeconds("duration")
        episode.enclosures = try decoded("enclosures", as: [Enclosure].self)
        episode.artworkURL = try row.decode(forColumn: "artworkURL")
        episode.season = try row.decode(forColumn: "season")
        episode.seasonName = try row.decode(forColumn: "seasonName")
        episode.number = try row.decode(forColumn: "number")
        episode.episodeType = try row.decode(forColumn: "episodeType")
        episode.explicit = try row.decode(forColumn: "explicit")
        episode.author = try row.decode(forColumn: "author")
        episode.chapters = try decoded("chapters", as: [Chapter].self)
        episode.chaptersURL = try row.decode(forColumn: "chaptersURL")
        episode.transcriptURL = try row.decode(forColumn: "transcriptURL")
        episode.persons = try decoded("persons", as: [Person].self)
        episode.soundbites = try decoded("soundbites", as: [Soundbite].self)
        return try LibraryEpisode(
            id: row.decode(forColumn: "id"), podcastId: row.decode(forColumn: "podcastId"), episode: episode, position: try row.storedSeconds("position") ?? 0,
            completed: row.decode(forColumn: "completed"), lastPlayedAt: try row.storedDate("lastPlayedAt"),
            currentlyPlaying: row.decode(forColumn: "currentlyPlaying"), inFeed: row.decode(forColumn: "inFeed"),
            podcastTitle: row.decode(forColumn: "podcastTitle") ?? "", podcastAuthor: row.decode(forColumn: "podcastAuthor"), podcastArtworkURL: row.decode(forColumn: "podcastArtworkURL"),
            podcastFeedURL: row.decode(forColumn: "podcastFeedURL") ?? "")
    }
}
