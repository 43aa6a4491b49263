import Foundation
import GRDB

/// The orders MPRIS `Playlists` offers podcasts in (oldest first).
public enum PodcastOrder: String, Sendable, CaseIterable {
    /// By title.
    case alphabetical = "Alphabetical"
    /// By when it was subscribed.
    case created = "Created"
    /// By its newest episode.
    case modified = "Modified"
    /// By when one of its episodes was last played.
    case played = "Played"

    var sql: String {
        switch self {
        case .alphabetical: "title COLLATE NOCASE"
        case .created: "subscribedAt"
        case .modified: "(SELECT max(published) FROM episode WHERE episode.podcastId = podcast.id)"
        case .played: "(SELECT max(lastPlayedAt) FROM episode WHERE episode.podcastId = podcast.id)"
        }
    }
}

// MARK: - Podcasts as playlists, episodes by URL

extension Library {
    /// Up to `limit` podcasts from the `offset`th in `order`.
    public func podcasts(in order: PodcastOrder, reversed: Bool, offset: Int, limit: Int) throws(LibraryError) -> [Podcast] {
        let direction = reversed ? "DESC" : "ASC"
        return try reading { db in
            try Row.fetchAll(db, sql: Self.podcastSelect + " ORDER BY \(order.sql) \(direction), id \(direction) LIMIT ? OFFSET ?",
                             arguments: [max(0, limit), max(0, offset)]).map(Self.podcast(from:))
        }
    }

    /// Each podcast's id, last refresh and failures in a row (what the
    /// refresh schedule needs), without the episode counts a listing adds.
    public func refreshStates() throws(LibraryError) -> [Podcast] {
        try reading { db in
            try Row.fetchAll(db, sql: "SELECT id, feedURL, title, subscribedAt, lastRefreshedAt, refreshFailures FROM podcast").map { row in
                var podcast = Podcast(id: try row.decode(forColumn: "id"), feedURL: try row.decode(forColumn: "feedURL"),
                                      title: try row.decode(forColumn: "title"),
                                      subscribedAt: Date(timeIntervalSince1970: try row.decode(forColumn: "subscribedAt")))
                podcast.lastRefreshedAt = (try row.decode(forColumn: "lastRefreshedAt") as Double?).map(Date.init(timeIntervalSince1970:))
                podcast.refreshFailures = try row.decode(forColumn: "refreshFailures")
                return podcast
            }
        }
    }

    public func podcastCount() throws(LibraryError) -> Int {
        try reading { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM podcast") ?? 0 }
    }

    public func queueCount() throws(LibraryError) -> Int {
        try reading { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM queueItem") ?? 0 }
    }

    /// What playing a podcast means: its episode in progress (the one
    /// played last), else its newest unplayed one (a serial podcast's oldest); nil when all are played.
    public func episodeToPlay(inPodcast podcastID: Int64) throws(LibraryError) -> Int64? {
        try reading { db in
            if let started = try Int64.fetchOne(db, sql: """
                SELECT id FROM episode WHERE podcastId = ? AND NOT completed AND position > 0
                ORDER BY lastPlayedAt DESC LIMIT 1
                """, arguments: [podcastID]) {
                return started
            }
            // A serial podcast (heard in order) starts at its oldest unplayed; any other at its newest.
            let serial = try Bool.fetchOne(db, sql: "SELECT serial FROM podcast WHERE id = ?", arguments: [podcastID]) ?? false
            return try Int64.fetchOne(db, sql: """
                SELECT id FROM episode WHERE podcastId = ? AND NOT completed
                ORDER BY \(serial ? "\(Self.episodeSortKey) DESC, id DESC" : "\(Self.episodeSortKey), id") LIMIT 1
                """, arguments: [podcastID])
        }
    }

    /// The episode whose audio is at `url` (any of its enclosures).
    public func episodeID(enclosureURL url: String) throws(LibraryError) -> Int64? {
        try reading { db in
            try Int64.fetchOne(db, sql: """
                SELECT episode.id FROM episode, json_each(episode.enclosures) AS enclosure
                WHERE json_extract(enclosure.value, '$.url') = ? LIMIT 1
                """, arguments: [url])
        }
    }
}
