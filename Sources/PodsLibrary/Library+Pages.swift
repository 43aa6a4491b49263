import Foundation
import GRDB

/// An episode as a list shows it: no description, chapters or people.
public struct EpisodeSummary: Sendable, Equatable, Identifiable {
    public var id: Int64
    public var podcastId: Int64
    public var podcastTitle: String
    public var guid: String
    public var title: String
    public var published: Date?
    public var duration: Double?
    public var position: Double
    public var completed: Bool
    public var lastPlayedAt: Date?
    public var currentlyPlaying: Bool
    public var inFeed: Bool
    public var season: Int?
    public var number: Int?
    public var episodeType: String?
    /// The first enclosure's URL.
    public var url: String?
    /// Where the next page starts when this is the last item of one.
    public var cursor: EpisodeCursor
}

extension LibraryEpisode {
    /// What a list shows of it.
    public var summary: EpisodeSummary {
        EpisodeSummary(
            id: id, podcastId: podcastId, podcastTitle: podcastTitle, guid: episode.guid, title: episode.title,
            published: episode.published, duration: episode.duration, position: position, completed: completed,
            lastPlayedAt: lastPlayedAt, currentlyPlaying: currentlyPlaying, inFeed: inFeed, season: episode.season,
            number: episode.number, episodeType: episode.episodeType, url: episode.enclosures.first?.url,
            cursor: EpisodeCursor(sortKey: -(episode.published?.timeIntervalSince1970 ?? -EpisodeCursor.undated), id: id))
    }
}

/// Which episodes a listing holds, in which order.
public struct EpisodeFilter: Sendable, Hashable {
    /// The order of a listing.
    public enum Order: String, Sendable, Hashable, CaseIterable {
        /// Newest first; a serial podcast's own listing oldest first (`itunes:type serial`: heard in order).
        case podcastsOwn
        case newestFirst
        /// The newest-first list read backwards: undated episodes, then the oldest.
        case oldestFirst
    }

    /// One podcast's episodes; every podcast's when nil.
    public var podcastId: Int64?
    /// Only episodes not played to the end.
    public var unplayedOnly: Bool
    public var order: Order

    public init(podcastId: Int64? = nil, unplayedOnly: Bool = false, order: Order = .podcastsOwn) {
        self.podcastId = podcastId
        self.unplayedOnly = unplayedOnly
        self.order = order
    }
}

/// A position in the episode order (newest first: published descending,
/// undated last, then by id, which follows the feed's order among
/// episodes it adds together), so that a page after it is one index range
/// scan however deep it is, and episodes added or removed meanwhile never
/// make a listing repeat or skip the others. (Feed order is no part of it:
/// a new item shifts every other item's place in the feed.)
public struct EpisodeCursor: Sendable, Hashable, LosslessStringConvertible {
    /// `-published`, undated episodes at `undated`.
    var sortKey: Double
    var id: Int64
    /// A place in the oldest-first order (the list read backwards); a cursor of one order is refused by the other.
    var backwards = false

    static let undated = 1e300

    /// `e1.<sort key's bits in hex>.<id>` (`o1.…` oldest first).
    public var description: String {
        "\(backwards ? "o1" : "e1").\(String(sortKey.bitPattern, radix: 16)).\(id)"
    }

    /// nil for text that no cursor gives.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "e1" || parts[0] == "o1", let bits = UInt64(parts[1], radix: 16),
              let id = Int64(parts[2]) else {
            return nil
        }
        let sortKey = Double(bitPattern: bits)
        guard sortKey.isFinite else { return nil }
        self.init(sortKey: sortKey, id: id, backwards: parts[0] == "o1")
    }

    init(sortKey: Double, id: Int64, backwards: Bool = false) {
        self.sortKey = sortKey
        self.id = id
        self.backwards = backwards
    }
}

// MARK: - Pages

extension Library {
    /// The SQL of the episode order (then by id); two indexes (v4) cover it.
    static let episodeSortKey = "-coalesce(episode.published, -\(EpisodeCursor.undated))"
    /// The same in an index definition, where columns go unqualified.
    static let indexedSortKey = "-coalesce(published, -\(EpisodeCursor.undated))"

    /// Up to `limit` episodes after `cursor` (from the newest when nil), in
    /// the list order. Fails with `.notFound` for an unknown podcast.
    public func episodes(_ filter: EpisodeFilter, after cursor: EpisodeCursor?, limit: Int) throws(LibraryError) -> [EpisodeSummary] {
        var summaries: [EpisodeSummary] = []
        try forEachEpisode(filter, after: cursor, limit: limit) { summaries.append($0); return true }
        return summaries
    }

    /// Hands `take` the episodes after `cursor` (from the newest when nil)
    /// in the list order, one row at a time as SQLite reads it, until `take`
    /// returns false or `limit` have gone by: a page that fills up early
    /// reads no more rows than it uses. Fails with `.notFound` for an
    /// unknown podcast.
    public func forEachEpisode(_ filter: EpisodeFilter, after cursor: EpisodeCursor?, limit: Int,
                               _ take: (EpisodeSummary) -> Bool) throws(LibraryError) {
        try reading { db in
            var conditions: [String] = []
            var arguments: StatementArguments = []
            var backwards = filter.order == .oldestFirst
            if let podcastId = filter.podcastId {
                let serial = try Bool.fetchOne(db, sql: "SELECT serial FROM podcast WHERE id = ?", arguments: [podcastId])
                guard let serial else { throw LibraryError(.notFound, "no podcast has id \(podcastId)") }
                if filter.order == .podcastsOwn { backwards = serial }
                conditions.append("episode.podcastId = ?")
                arguments += [podcastId]
            }
            if filter.unplayedOnly { conditions.append("NOT episode.completed") }
            if let cursor {
                guard cursor.backwards == backwards else {
                    throw LibraryError(.invalid, "the cursor is a place in the \(cursor.backwards ? "oldest" : "newest")-first order, "
                                       + "not in this listing's")
                }
                // Spelled out rather than as a row value, which SQLite scans instead of seeking.
                let (after, beyond) = backwards ? ("<", "<") : (">", ">")
                conditions.append("\(Self.episodeSortKey) \(after)= ? AND (\(Self.episodeSortKey) \(after) ? OR episode.id \(beyond) ?)")
                arguments += [cursor.sortKey, cursor.sortKey, cursor.id]
            }
            var sql = Self.summarySelect
            if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
            // Oldest first is the same index read backwards.
            sql += backwards ? " ORDER BY \(Self.episodeSortKey) DESC, episode.id DESC LIMIT ?"
                : " ORDER BY \(Self.episodeSortKey), episode.id LIMIT ?"
            arguments += [max(0, limit)]
            // A listing asks for page after page with the same SQL: prepared once per reader.
            let rows = try Row.fetchCursor(try db.cachedStatement(sql: sql), arguments: arguments)
            while let row = try rows.next() {
                var summary = try Self.summary(from: row)
                summary.cursor.backwards = backwards
                guard take(summary) else { break }
            }
        }
    }

    /// Up to `limit` queued episodes from the `offset`th (0 is next).
    public func queue(offset: Int, limit: Int) throws(LibraryError) -> [EpisodeSummary] {
        try reading { db in
            try Self.summaries(db, Self.summarySelect + " JOIN queueItem ON queueItem.episodeId = episode.id "
                               + "ORDER BY queueItem.rank LIMIT ? OFFSET ?", [max(0, limit), max(0, offset)])
        }
    }

    /// Up to `limit` subscriptions from the `offset`th, newest first, with episode counts.
    public func podcasts(offset: Int, limit: Int) throws(LibraryError) -> [Podcast] {
        try reading { db in
            try Row.fetchAll(db, sql: Self.podcastSelect + " ORDER BY subscribedAt DESC, id DESC LIMIT ? OFFSET ?",
                             arguments: [max(0, limit), max(0, offset)]).map(Self.podcast(from:))
        }
    }

    // MARK: Rows

    static let summarySelect = """
        SELECT episode.id, episode.podcastId, podcast.title AS podcastTitle, episode.guid, episode.title,
            episode.published, episode.duration, episode.position, episode.completed, episode.lastPlayedAt,
            episode.currentlyPlaying, episode.inFeed, episode.season, episode.number, episode.episodeType,
            json_extract(episode.enclosures, '$[0].url') AS url,
            \(episodeSortKey) AS sortKey
        FROM episode JOIN podcast ON podcast.id = episode.podcastId
        """

    /// Rows read in place from the statement (`fetchAll` would copy each
    /// row, column names and all).
    static func summaries(_ db: Database, _ sql: String, _ arguments: StatementArguments) throws -> [EpisodeSummary] {
        var summaries: [EpisodeSummary] = []
        let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try rows.next() { summaries.append(try summary(from: row)) }
        return summaries
    }

    /// Read by position, in `summarySelect`'s order (by name, GRDB
    /// compares names case-insensitively, which costs more than the rest
    /// of a 50,000-row listing).
    private static func summary(from row: Row) throws -> EpisodeSummary {
        try EpisodeSummary(
            id: row.decode(atIndex: 0), podcastId: row.decode(atIndex: 1), podcastTitle: row.decode(atIndex: 2) ?? "", guid: row.decode(atIndex: 3), title: row.decode(atIndex: 4),
            published: (row.decode(atIndex: 5) as Double?).map(Date.init(timeIntervalSince1970:)), duration: row.decode(atIndex: 6), position: row.decode(atIndex: 7),
            completed: row.decode(atIndex: 8), lastPlayedAt: (row.decode(atIndex: 9) as Double?).map(Date.init(timeIntervalSince1970:)),
            currentlyPlaying: row.decode(atIndex: 10), inFeed: row.decode(atIndex: 11), season: row.decode(atIndex: 12), number: row.decode(atIndex: 13), episodeType: row.decode(atIndex: 14), url: row.decode(atIndex: 15),
            cursor: EpisodeCursor(sortKey: row.decode(atIndex: 16), id: row.decode(atIndex: 0)))
    }
}
