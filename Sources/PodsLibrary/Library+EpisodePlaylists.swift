import Foundation
import GRDB
import PodsFeedParser
import PodsSettings

/// What a smart playlist holds: the episodes that pass every rule given,
/// in its order. Kept as JSON in the library.
public struct PlaylistRules: Sendable, Equatable, Codable {
    public enum Order: String, Sendable, Codable, CaseIterable {
        case newest, oldest, shortest, longest
    }

    /// Only these podcasts' episodes (empty: every podcast's).
    public var podcasts: [Int64] = []
    public var unplayed = false
    public var downloaded = false
    /// Seconds; an episode of unknown length passes neither.
    public var minDuration: Double?
    public var maxDuration: Double?
    /// Published at most this many seconds ago.
    public var maxAge: Double?
    /// A `TitlePattern` over episode titles.
    public var title: String?
    public var order = Order.newest

    public init(podcasts: [Int64] = [], unplayed: Bool = false, downloaded: Bool = false, minDuration: Double? = nil,
                maxDuration: Double? = nil, maxAge: Double? = nil, title: String? = nil, order: Order = .newest) {
        (self.podcasts, self.unplayed, self.downloaded) = (podcasts, unplayed, downloaded)
        (self.minDuration, self.maxDuration, self.maxAge, self.title, self.order) = (minDuration, maxDuration, maxAge, title, order)
    }

    /// The most podcasts one playlist names.
    public static let maximumPodcasts = 1000
}

/// A named list of episodes: one of rules (`rules`), or kept by hand (`rules` nil).
public struct EpisodePlaylist: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var rules: PlaylistRules?
    /// How many episodes it holds now.
    public var count: Int
    /// The podcast of its first episode now (its icon's), nil when it holds none.
    public var firstPodcastId: Int64?
    public var createdAt: Date
    public var modifiedAt: Date
    /// When it was last played (activated).
    public var playedAt: Date?
}

extension Library {
    /// The most playlists a library keeps (each is an MPRIS playlist, and every desktop lists them).
    public static let maximumPlaylists = 1000
    /// The longest name, in characters.
    public static let playlistNameLimit = 100

    // MARK: - Making and changing

    /// A new playlist: of `rules`, or (nil) one kept by hand. A name taken
    /// (without regard to case), an empty or overlong one, rules with values
    /// out of range or a pattern that is no regular expression are refused;
    /// nothing is written.
    @discardableResult
    public func createPlaylist(_ name: String, rules: PlaylistRules?, at now: Date = Date()) throws(LibraryError) -> EpisodePlaylist {
        let name = Self.oneLine(name)
        guard !name.isEmpty, Self.fits(name, Self.playlistNameLimit) else {
            throw LibraryError(.invalid, "a playlist's name is 1 to \(Self.playlistNameLimit) characters")
        }
        guard Int64(name) == nil else { throw LibraryError(.invalid, "a playlist's name is not a number (numbers are ids)") }
        // "queue" names the queue wherever a playlist is named (ADVERSARIAL-5, 7).
        guard name.lowercased() != "queue" else { throw LibraryError(.invalid, "\"queue\" is the queue's name") }
        if let rules { try Self.check(rules) }
        let json = try rules.map { rules throws(LibraryError) in
            do { return String(decoding: try JSONEncoder().encode(rules), as: UTF8.self) } catch {
                throw LibraryError(.invalid, "the playlist's rules: \(error)")
            }
        }
        let id = try writing { db in
            guard try Int.fetchOne(db, sql: "SELECT count(*) FROM playlist") ?? 0 < Self.maximumPlaylists else {
                throw LibraryError(.invalid, "a library keeps at most \(Self.maximumPlaylists) playlists")
            }
            guard try Int64.fetchOne(db, sql: "SELECT id FROM playlist WHERE name = ?", arguments: [name]) == nil else {
                throw LibraryError(.duplicate, "there is a playlist called \(name) already")
            }
            if let rules {
                let known = try Int.fetchOne(db, sql: "SELECT count(*) FROM podcast WHERE id IN (SELECT value FROM json_each(?))",
                                             arguments: [Self.jsonArray(rules.podcasts)]) ?? 0
                guard known == Set(rules.podcasts).count else { throw LibraryError(.notFound, "a podcast the playlist names is not subscribed") }
            }
            try db.execute(sql: "INSERT INTO playlist (name, rules, createdAt, modifiedAt) VALUES (?, ?, ?, ?)",
                           arguments: [name, json, now.timeIntervalSince1970, now.timeIntervalSince1970])
            return db.lastInsertedRowID
        }
        // A title rule's pattern is matched against every title before the playlist is first counted
        // (outside the write; should that fail, on the title index's lane a moment later).
        if rules?.title != nil {
            do { try matchTitles() } catch { matchTitlesSoon() }
        }
        return try playlist(id, now: now)
    }

    public func deletePlaylist(_ id: Int64) throws(LibraryError) {
        try writing { db in
            try db.execute(sql: "DELETE FROM playlist WHERE id = ?", arguments: [id])
            if db.changesCount == 0 { throw LibraryError(.notFound, "no playlist \(id)") }
            try db.execute(sql: "DELETE FROM playlistActive WHERE playlistId = ?", arguments: [id])
        }
        playlistCounts.withLock { _ = $0.removeValue(forKey: id) }
        matchTitlesSoon()  // forgets a pattern no playlist has any more
    }

    /// Adds `episodes` to a list kept by hand, at `index` (nil: the end); one already in it moves there.
    public func addToPlaylist(_ id: Int64, _ episodes: [Int64], at index: Int? = nil, now: Date = Date()) throws(LibraryError) {
        try writing { db in
            let playlist = try Self.storedPlaylist(id, db)
            guard playlist.rules == nil else { throw LibraryError(.invalid, "\(playlist.name) is a playlist of rules: it holds what they choose") }
            for episode in episodes { _ = try Self.episode(episode, db) }
            let others = "SELECT rank FROM playlistItem WHERE playlistId = ? AND episodeId NOT IN (SELECT value FROM json_each(?)) ORDER BY rank"
            var ranks = try Double.fetchAll(db, sql: others, arguments: [id, Self.jsonArray(episodes)])
            let at = min(max(0, index ?? ranks.count), ranks.count)
            func bounds() -> (low: Double, step: Double) {
                let low = at > 0 ? ranks[at - 1] : (ranks.first ?? 1) - 1
                let high = at < ranks.count ? ranks[at] : (ranks.last ?? 0) + Double(episodes.count + 1)
                return (low, (high - low) / Double(episodes.count + 1))
            }
            var (low, step) = bounds()
            // Ranks are midpoints: adding at one place again and again halves the gap each time, and
            // after about fifty adds two ranks were equal and the order was the ids' (REVIEW-4, N17).
            // A gap too narrow to split is made whole again: the list renumbered 1, 2, 3, … as it stands.
            if step < max(1, abs(low)) * 1e-9 {
                try db.execute(sql: """
                    UPDATE playlistItem SET rank = (SELECT n FROM (SELECT episodeId AS e, row_number() OVER (ORDER BY rank, episodeId) AS n
                        FROM playlistItem WHERE playlistId = ?1) WHERE e = playlistItem.episodeId) WHERE playlistId = ?1
                    """, arguments: [id])
                ranks = try Double.fetchAll(db, sql: others, arguments: [id, Self.jsonArray(episodes)])
                (low, step) = bounds()
            }
            for (offset, episode) in episodes.enumerated() {
                try db.execute(sql: """
                    INSERT INTO playlistItem (playlistId, episodeId, rank) VALUES (?, ?, ?)
                    ON CONFLICT(playlistId, episodeId) DO UPDATE SET rank = excluded.rank
                    """, arguments: [id, episode, low + step * Double(offset + 1)])
            }
            try db.execute(sql: "UPDATE playlist SET modifiedAt = ? WHERE id = ?", arguments: [now.timeIntervalSince1970, id])
        }
    }

    public func removeFromPlaylist(_ id: Int64, _ episode: Int64, now: Date = Date()) throws(LibraryError) {
        try writing { db in
            let playlist = try Self.storedPlaylist(id, db)
            guard playlist.rules == nil else { throw LibraryError(.invalid, "\(playlist.name) is a playlist of rules: it holds what they choose") }
            try db.execute(sql: "DELETE FROM playlistItem WHERE playlistId = ? AND episodeId = ?", arguments: [id, episode])
            if db.changesCount == 0 { throw LibraryError(.notFound, "episode \(episode) is not in \(playlist.name)") }
            try db.execute(sql: "UPDATE playlist SET modifiedAt = ? WHERE id = ?", arguments: [now.timeIntervalSince1970, id])
        }
    }

    // MARK: - Reading

    public func playlist(_ id: Int64, now: Date = Date()) throws(LibraryError) -> EpisodePlaylist {
        let generations = changes.generations
        return try reading { db in try counted(Self.storedPlaylist(id, db), db, now: now, generations) }
    }

    /// The playlist `text` names: its id, or its name (without regard to case).
    public func playlist(matching text: String, now: Date = Date()) throws(LibraryError) -> EpisodePlaylist {
        let generations = changes.generations
        return try reading { db in
            if let id = Int64(text) { return try counted(Self.storedPlaylist(id, db), db, now: now, generations) }
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM playlist WHERE name = ?", arguments: [Self.oneLine(text)]) else {
                throw LibraryError(.notFound, "no playlist is called \(text.prefix(Self.playlistNameLimit))")
            }
            return try counted(Self.storedPlaylist(id, db), db, now: now, generations)
        }
    }

    /// How many playlists there are (without counting what each holds).
    public func playlistCount() throws(LibraryError) -> Int {
        try reading { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM playlist") ?? 0 }
    }

    /// The playlists (at most `maximumPlaylists`), with how many episodes
    /// each holds now. A count is kept until something it depends on
    /// changes (`LibraryChangeFeed.Generations`; a playlist of an age rule
    /// a minute at most): a thousand playlists are listed without counting
    /// them again.
    public func playlists(now: Date = Date()) throws(LibraryError) -> [EpisodePlaylist] {
        let generations = changes.generations
        return try reading { db in
            try Row.fetchAll(db, sql: "SELECT * FROM playlist ORDER BY name COLLATE NOCASE LIMIT ?", arguments: [Self.maximumPlaylists])
                .map { row in try counted(Self.storedPlaylist(row), db, now: now, generations) }
        }
    }

    /// Up to `limit` of the playlist's episodes from the `offset`th, in its order.
    public func playlistEpisodes(_ id: Int64, offset: Int, limit: Int, now: Date = Date()) throws(LibraryError) -> [EpisodeSummary] {
        try reading { db in
            let playlist = try Self.storedPlaylist(id, db)
            let (filter, arguments) = Self.filter(playlist, now: now)
            return try Self.summaries(db, Self.summarySelect + " WHERE \(filter) ORDER BY \(Self.order(playlist)) LIMIT ? OFFSET ?",
                                      StatementArguments(arguments + [max(0, limit), max(0, offset)]))
        }
    }

    // MARK: - What plays next

    /// What the listener last activated: a playlist's id, `queue` for the
    /// queue (`QueuePlaylist.id`), or nil (a podcast, or nothing yet).
    public func activePlaylist() throws(LibraryError) -> Int64? {
        try reading { db in try Self.activePlaylist(db) }
    }

    /// Makes `id` (a playlist, `QueuePlaylist.id`, or nil) what plays next after each episode.
    public func setActivePlaylist(_ id: Int64?, now: Date = Date()) throws(LibraryError) {
        try writing { db in
            if let id, id != QueuePlaylist.id { _ = try Self.storedPlaylist(id, db) }
            try db.execute(sql: "DELETE FROM playlistActive")
            if let id {
                try db.execute(sql: "INSERT INTO playlistActive (playlistId) VALUES (?)", arguments: [id])
                try db.execute(sql: "UPDATE playlist SET playedAt = ? WHERE id = ?", arguments: [now.timeIntervalSince1970, id])
            }
        }
    }

    /// The active playlist's episode after `id` (its first when `id` is not in it); nil at its end.
    /// Two indexed queries: where `id` stands in the playlist's order, and
    /// the first episode past it (before, every row was numbered each time).
    static func nextInPlaylist(_ playlistID: Int64, after id: Int64, _ db: Database) throws -> Int64? {
        let now = Date()
        let playlist = try storedPlaylist(playlistID, db)
        let (filter, arguments) = Self.filter(playlist, now: now)
        let keys = orderKeys(playlist)
        let order = order(playlist)
        guard let place = try Row.fetchOne(db, sql: "SELECT \(keys.map(\.expression).joined(separator: ", ")) FROM episode WHERE episode.id = ? AND \(filter)",
                                           arguments: StatementArguments([id] + arguments)) else {
            return try Int64.fetchOne(db, sql: "SELECT episode.id FROM episode WHERE \(filter) AND episode.id != ? ORDER BY \(order) LIMIT 1",
                                      arguments: StatementArguments(arguments + [id]))
        }
        // Past (k1, k2, …): k1 beyond v1, or k1 = v1 and (k2 beyond v2, or …).
        var condition = ""
        var values: [DatabaseValue] = []
        for (index, key) in keys.enumerated().reversed() {
            let value: DatabaseValue = place[index]
            let beyond = "\(key.expression) \(key.descending ? "<" : ">") ?"
            if condition.isEmpty {
                condition = beyond
                values = [value]
            } else {
                condition = "(\(beyond) OR (\(key.expression) = ? AND \(condition)))"
                values = [value, value] + values
            }
        }
        return try Int64.fetchOne(db, sql: "SELECT episode.id FROM episode WHERE \(filter) AND \(condition) ORDER BY \(order) LIMIT 1",
                                  arguments: StatementArguments(arguments) + StatementArguments(values))
    }

    static func activePlaylist(_ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT playlistId FROM playlistActive LIMIT 1")
    }

    // MARK: - Rules as SQL

    private static func check(_ rules: PlaylistRules) throws(LibraryError) {
        guard rules.podcasts.count <= PlaylistRules.maximumPodcasts else {
            throw LibraryError(.invalid, "a playlist names at most \(PlaylistRules.maximumPodcasts) podcasts")
        }
        for duration in [rules.minDuration, rules.maxDuration, rules.maxAge].compactMap({ $0 }) where MediaSeconds.checked(duration) == nil {
            throw LibraryError(.invalid, "a playlist's durations and age are 0 to \(Int(MediaSeconds.maximum)) seconds")
        }
        if let title = rules.title {
            do throws(SettingsError) { _ = try TitlePattern(title) } catch { throw LibraryError(.invalid, error.message) }
        }
    }

    /// The WHERE clause (over `episode`) and its arguments.
    private static func filter(_ playlist: EpisodePlaylist, now: Date) -> (String, [any DatabaseValueConvertible & Sendable]) {
        guard let rules = playlist.rules else {
            return ("episode.id IN (SELECT episodeId FROM playlistItem WHERE playlistId = ?)", [playlist.id])
        }
        var clauses = ["1"]
        var arguments: [any DatabaseValueConvertible & Sendable] = []
        if !rules.podcasts.isEmpty {
            clauses.append("episode.podcastId IN (SELECT value FROM json_each(?))")
            arguments.append(jsonArray(rules.podcasts))
        }
        if rules.unplayed { clauses.append("NOT episode.completed") }
        if rules.downloaded { clauses.append("episode.id IN (SELECT episodeId FROM cachedMedia WHERE complete)") }
        if let minimum = rules.minDuration { clauses.append("episode.duration >= ?"); arguments.append(minimum) }
        if let maximum = rules.maxDuration { clauses.append("episode.duration <= ?"); arguments.append(maximum) }
        if let age = rules.maxAge { clauses.append("episode.published >= ?"); arguments.append(now.timeIntervalSince1970 - age) }
        // Matched before (`Library+TitleIndex`): no pattern runs as a playlist is read.
        if let title = rules.title { clauses.append("episode.id IN (SELECT episodeId FROM titleMatch WHERE pattern = ?)"); arguments.append(title) }
        return (clauses.joined(separator: " AND "), arguments)
    }

    private static func order(_ playlist: EpisodePlaylist) -> String {
        orderKeys(playlist).map { $0.descending ? "\($0.expression) DESC" : $0.expression }.joined(separator: ", ")
    }

    /// The playlist's order, as the expressions it sorts by (none NULL for an episode it holds).
    private static func orderKeys(_ playlist: EpisodePlaylist) -> [(expression: String, descending: Bool)] {
        guard let rules = playlist.rules else {
            return [("(SELECT rank FROM playlistItem WHERE playlistId = \(playlist.id) AND episodeId = episode.id)", false), ("episode.id", false)]
        }
        // Newest and oldest first walk the library's own index, as `pods episodes --newest/--oldest` list.
        return switch rules.order {
        case .newest: [(episodeSortKey, false), ("episode.id", false)]
        case .oldest: [(episodeSortKey, true), ("episode.id", true)]
        case .shortest: [("(episode.duration IS NULL)", false), ("coalesce(episode.duration, 0)", false), ("episode.id", false)]
        case .longest: [("(episode.duration IS NULL)", false), ("coalesce(episode.duration, 0)", true), ("episode.id", false)]
        }
    }

    /// A playlist as stored, its `count` not yet read.
    private static func storedPlaylist(_ id: Int64, _ db: Database) throws -> EpisodePlaylist {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM playlist WHERE id = ?", arguments: [id]) else {
            throw LibraryError(.notFound, "no playlist \(id)")
        }
        return storedPlaylist(row)
    }

    private static func storedPlaylist(_ row: Row) -> EpisodePlaylist {
        let rules = (row["rules"] as String?).flatMap { try? JSONDecoder().decode(PlaylistRules.self, from: Data($0.utf8)) }
        var playlist = EpisodePlaylist(
            id: row["id"], name: row["name"], rules: rules, count: 0, firstPodcastId: nil, createdAt: Date(timeIntervalSince1970: row["createdAt"]),
            modifiedAt: Date(timeIntervalSince1970: row["modifiedAt"]),
            playedAt: (row["playedAt"] as Double?).map(Date.init(timeIntervalSince1970:)))
        if row["rules"] as String? != nil, rules == nil { playlist.rules = PlaylistRules(podcasts: [-1]) }  // unreadable: holds nothing
        return playlist
    }

    /// How long a count of a playlist of an age rule is kept (episodes age out of it unannounced).
    static let agedCountLifetime: TimeInterval = 60

    /// `playlist` with its count: the one kept, if nothing it depends on changed since `generations`; else read now.
    private func counted(_ playlist: EpisodePlaylist, _ db: Database, now: Date,
                         _ generations: LibraryChangeFeed.Generations) throws -> EpisodePlaylist {
        var playlist = playlist
        let rules = playlist.rules
        let key = PlaylistCount.Key(rules: rules, listening: generations.listening,
                                    downloads: rules?.downloaded == true ? generations.downloads : 0)
        let kept = playlistCounts.withLock { $0[playlist.id] }
        if let kept, kept.key == key, rules?.maxAge == nil || abs(kept.at.timeIntervalSince(now)) < Self.agedCountLifetime {
            (playlist.count, playlist.firstPodcastId) = (kept.count, kept.firstPodcastId)
            return playlist
        }
        let (filter, arguments) = Self.filter(playlist, now: now)
        playlist.count = try Int.fetchOne(db, sql: "SELECT count(*) FROM episode WHERE \(filter)", arguments: StatementArguments(arguments)) ?? 0
        if playlist.count > 0 {
            playlist.firstPodcastId = try Int64.fetchOne(db, sql: "SELECT episode.podcastId FROM episode WHERE \(filter) ORDER BY \(Self.order(playlist)) LIMIT 1",
                                                         arguments: StatementArguments(arguments))
        }
        let count = PlaylistCount(key: key, at: now, count: playlist.count, firstPodcastId: playlist.firstPodcastId)
        playlistCounts.withLock { counts in
            if counts.count >= Self.maximumPlaylists * 2 { counts.removeAll() }  // playlists deleted by another library handle
            counts[playlist.id] = count
        }
        return playlist
    }

    /// Ids as a JSON array, for `json_each(?)`.
    static func jsonArray(_ ids: [Int64]) -> String { "[" + ids.map(String.init).joined(separator: ",") + "]" }
}

/// A playlist's count and first podcast as last read, and what they were read at.
struct PlaylistCount: Sendable {
    struct Key: Equatable {
        /// The rules it was counted by (a playlist deleted and its id given again counts anew).
        var rules: PlaylistRules?
        var listening: UInt64
        /// 0 unless the playlist holds downloads only.
        var downloads: UInt64
    }

    var key: Key
    var at: Date
    var count: Int
    var firstPodcastId: Int64?
}

/// The queue, as one of the playlists MPRIS shows.
public enum QueuePlaylist {
    /// What `activePlaylist` says when the queue is active (no playlist has it).
    public static let id: Int64 = 0
}
